package render

// GLSL 4.10 core sources. Lighting happens in linear light in view space
// (a key light from the upper left, a fill from the right, ambient), and
// every 3D shader writes sRGB-encoded colour.

const lightingGLSL = `
vec3 lit(vec3 N, vec3 V, vec3 albedo, float spec) {
	const vec3 L1 = normalize(vec3(-0.35, 0.55, 0.75));
	const vec3 L2 = normalize(vec3(0.65, -0.05, 0.45));
	float d1 = max(dot(N, L1), 0.0);
	float d2 = max(dot(N, L2), 0.0);
	// Blinn-Phong with exponent 32 by repeated squaring: pow is slow in
	// software rasterisers.
	float h = max(dot(N, normalize(L1 + V)), 0.0);
	h *= h; h *= h; h *= h; h *= h; h *= h;
	return albedo * (0.20 + 0.78 * d1 + 0.28 * d2) + vec3(spec * h);
}
// Colours are encoded with gamma 2 (see linear in config.go): close to
// sRGB, and a square root instead of three pows per pixel.
vec3 encode(vec3 c) { return sqrt(clamp(c, 0.0, 1.0)); }
`

// The cloth is lit per vertex and textured per pixel. Diffuse light is
// linear in the albedo, and the gamma-2 encoding is multiplicative
// (sqrt(L·a) = sqrt(L)·sqrt(a)), so the vertex shader passes the encoded
// irradiance of each face and the fragment shader only multiplies it by the
// encoded albedo: the far view costs a software rasteriser (llvmpipe)
// little more than a flat colour.
const clothVS = `#version 410 core
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec2 aUV;
uniform mat4 uView;
uniform mat4 uProj;
out vec3 vPos;
out vec3 vNormal;
out vec2 vUV;
out vec3 vLightFront; // encoded irradiance of the face whose normal is aNormal
out vec3 vLightBack;  // and of the other face, a little darker
invariant gl_Position; // the patch pass must hit the cloth's depths exactly
` + lightingGLSL + `
void main() {
	vec4 p = uView * vec4(aPos, 1.0);
	vPos = p.xyz;
	vec3 N = normalize(mat3(uView) * aNormal);
	vNormal = N;
	vUV = aUV;
	// Irradiance may exceed 1; only the lit colour is clamped, on output.
	vLightFront = sqrt(lit(N, normalize(-p.xyz), vec3(1.0), 0.0));
	vLightBack = sqrt(0.85 * lit(-N, normalize(-p.xyz), vec3(1.0), 0.0));
	gl_Position = uProj * p;
}
`

// clothFS textures the cloth: far away with the weave's mean colour, and,
// compiled with WEAVE defined (the program used when some part of the
// cloth is near enough to resolve its yarns), with the weave texture in
// fabric coordinates (u, v) [m]: uRepeat is the size of the texture's 20
// x 20 crossing cells, warp yarns spaced along u, weft yarns along v
// (weave.go builds it, yarns shaded by their height). Its mipmaps filter
// the yarns to their mean colour as they shrink, so the weave shows at its
// true scale without moiré (sampled one level coarser than the pixel's
// footprint). Both programs draw the marking grid (Config.Grid). Colours are gamma-2 encoded. Two programs
// instead of a uniform branch: llvmpipe pays for a branch it does not
// take.
const clothFS = `
in vec3 vPos;
in vec3 vNormal;
in vec2 vUV;
in vec3 vLightFront;
in vec3 vLightBack;
out vec4 fragColor;
uniform vec3 uMean;  // encoded mean albedo of the weave
uniform float uGrid; // spacing of the marking grid [m]; 0: none
#ifdef WEAVE
uniform sampler2D uWeave;
uniform vec2 uRepeat;      // [m]
uniform float uWeaveSize;  // texels a side at level 0
#endif

void main() {
#ifdef WEAVE
	// The level from the footprint's longer side (the GL's own choice on
	// llvmpipe undershoots at grazing angles), one level coarser than it
	// asks for: the pattern's finest frequency (warp against weft, one
	// crossing cell) is then filtered before it can alias.
	vec2 t = vUV / uRepeat;
	vec2 tx = dFdx(t) * uWeaveSize, ty = dFdy(t) * uWeaveSize;
	float lod = 0.5 * log2(max(max(dot(tx, tx), dot(ty, ty)), 1e-12)) + 1.0;
	vec3 albedo = textureLod(uWeave, t, lod).rgb;
#else
	vec3 albedo = uMean;
#endif
	if (uGrid > 0.0) {
		// Lines about a pixel wide along u and v every uGrid of the rest
		// shape, like a tailor's chalk grid: they bend and spread with the
		// cloth, so folds and stretch show. They fade out before they get
		// closer than 4 px, where they would alias.
		vec2 g = vUV / uGrid;
		vec2 w = max(fwidth(g), vec2(1e-6));
		vec2 d = abs(fract(g - 0.5) - 0.5) / w;
		float line = (1.0 - min(min(d.x, d.y), 1.0)) * (1.0 - smoothstep(0.12, 0.25, max(w.x, w.y)));
		albedo *= 1.0 - 0.45 * line;
	}
	fragColor = vec4((gl_FrontFacing ? vLightFront : vLightBack) * albedo, 1.0);
}
`

// patchFS draws one contact patch over the cloth, on the triangles near
// it only: a tinted disc, a ring, and a tick along the finger's distal
// axis, on the face of the cloth that the finger touches.
const patchFS = `#version 410 core
in vec3 vPos;
in vec3 vNormal;
in vec2 vUV;
out vec4 fragColor;
uniform vec4 uPatch;  // u, v, radius [m], line width [m]
uniform vec2 uDir;    // cos, sin of the distal axis from u
uniform vec3 uColor;  // encoded
uniform vec4 uFinger; // pad centre in view space, w = 1 when known
void main() {
	vec3 face = gl_FrontFacing ? vNormal : -vNormal;
	if (uFinger.w > 0.0 && dot(uFinger.xyz - vPos, face) < 0.0) discard;
	vec2 d = vUV - uPatch.xy;
	float r = uPatch.z, w = uPatch.w;
	float dist = length(d);
	float along = clamp(dot(d, uDir), 0.0, r);
	float ring = 1.0 - smoothstep(0.0, w, abs(dist - r));
	float tick = 1.0 - smoothstep(0.0, w, length(d - along * uDir));
	float a = max(dist < r ? 0.35 : 0.0, 0.9 * max(ring, tick));
	if (a <= 0.0) discard;
	fragColor = vec4(uColor, a);
}
`

// The solids (stand, pads, arrows) are lit per vertex too: their meshes
// are fine enough, and per-pixel lighting of the stand's posts alone would
// cost a software rasteriser a large share of its frame time.
const solidVS = `#version 410 core
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
uniform mat4 uModelView;
uniform mat4 uProj;
uniform mat3 uNormalMat;
uniform vec4 uColor; // linear RGB, alpha
uniform float uSpec;
out vec4 vColor;
` + lightingGLSL + `
void main() {
	vec4 p = uModelView * vec4(aPos, 1.0);
	vec3 N = normalize(uNormalMat * aNormal);
	vColor = vec4(encode(lit(N, normalize(-p.xyz), uColor.rgb, uSpec)), uColor.a);
	gl_Position = uProj * p;
}
`

const solidFS = `#version 410 core
in vec4 vColor;
out vec4 fragColor;
void main() { fragColor = vColor; }
`

const flatVS = `#version 410 core
layout(location = 0) in vec2 aPos;
layout(location = 1) in vec2 aUV;
layout(location = 2) in vec4 aColor;
uniform vec2 uViewport;
out vec2 vUV;
out vec4 vColor;
void main() {
	vUV = aUV;
	vColor = aColor;
	gl_Position = vec4(2.0 * aPos.x / uViewport.x - 1.0, 1.0 - 2.0 * aPos.y / uViewport.y, 0.0, 1.0);
}
`

const flatFS = `#version 410 core
in vec2 vUV;
in vec4 vColor;
out vec4 fragColor;
uniform sampler2D uAtlas;
void main() {
	fragColor = vec4(vColor.rgb, vColor.a * texture(uAtlas, vUV).r);
}
`
