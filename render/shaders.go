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
// compiled with WEAVE defined (the program used when some part of the cloth
// is near enough to resolve its yarns), with a procedural weave in fabric
// coordinates (u, v) [m]: warp yarns run along v and are spaced uPitch.x
// along u, weft yarns run along u and are spaced uPitch.y along v. In each
// crossing cell the pattern decides which yarn lies on top; the visible
// yarn is shaded by its height: a round cross-section and an arch over the
// crossing. Where a cell is smaller than about a pixel the weave fades to
// its mean colour instead of aliasing into moiré. Colours are gamma-2
// encoded. Two programs instead of a uniform branch: llvmpipe pays for a
// branch it does not take.
const clothFS = `
in vec3 vPos;
in vec3 vNormal;
in vec2 vUV;
in vec3 vLightFront;
in vec3 vLightBack;
out vec4 fragColor;
uniform vec3 uWarp;  // encoded
uniform vec3 uWeft;  // encoded
uniform vec3 uMean;  // encoded mean albedo of the weave
uniform vec2 uPitch;
uniform int uPattern;

#ifdef WEAVE
bool warpOnTop(ivec2 c) {
	if (uPattern == 1) return ((c.x + c.y) & 3) < 2;
	if (uPattern == 2) return (c.y + 2 * c.x) % 5 != 0;
	return ((c.x + c.y) & 1) == 0;
}

vec3 weave(vec2 g) {
	const float PI = 3.14159265;
	const float W = 0.42; // yarn half width, in yarn spacings
	ivec2 cell = ivec2(floor(g)) + 1000; // keep indices positive: 1000 is a multiple of 4 and 5
	vec2 f = fract(g) - 0.5;
	float aw = f.x / W; // across the warp yarn
	float af = f.y / W; // across the weft yarn
	bool top = warpOnTop(cell);
	if (abs(aw) < 1.0 && (top || abs(af) >= 1.0)) {
		float h = sqrt(1.0 - aw * aw) * (top ? 0.55 + 0.45 * cos(f.y * PI) : 0.7);
		return uWarp * sqrt(0.3 + 0.7 * h);
	}
	if (abs(af) < 1.0) {
		float h = sqrt(1.0 - af * af) * (!top ? 0.55 + 0.45 * cos(f.x * PI) : 0.7);
		return uWeft * sqrt(0.3 + 0.7 * h);
	}
	return 0.45 * uMean; // the gap between yarns
}
#endif

void main() {
	vec3 albedo = uMean;
#ifdef WEAVE
	vec2 g = vUV / uPitch;
	vec2 fw = fwidth(g);
	float k = smoothstep(0.3, 0.9, max(fw.x, fw.y));
	if (k < 1.0) albedo = mix(weave(g), uMean, k);
#endif
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
