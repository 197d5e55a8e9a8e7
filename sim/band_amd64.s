#include "textflag.h"

// dotBandAsm, in the order kernels.go sets out for dotBand: Y0 holds the
// partial sums s0..s3, Y1 s4..s7. The last 0 to 7 entries are loaded
// through a mask (masked lanes read as zero and add +0, which leaves a sum
// started from +0 unchanged), so nothing past either slice is read.

// Eight quadwords: four ones, four zeros. The four from 4-r on are a mask
// of the first r lanes.
DATA bandmask<>+0(SB)/8, $-1
DATA bandmask<>+8(SB)/8, $-1
DATA bandmask<>+16(SB)/8, $-1
DATA bandmask<>+24(SB)/8, $-1
DATA bandmask<>+32(SB)/8, $0
DATA bandmask<>+40(SB)/8, $0
DATA bandmask<>+48(SB)/8, $0
DATA bandmask<>+56(SB)/8, $0
GLOBL bandmask<>(SB), RODATA|NOPTR, $64

// MASKED(ACC) adds the products of the DX (0 to 3) entries from AX on to
// ACC's first DX lanes.
#define MASKED(ACC) \
	MOVQ        $4, R9             \
	SUBQ        DX, R9             \
	VMOVUPD     (R8)(R9*8), Y4     \
	VMASKMOVPD  (SI)(AX*8), Y4, Y2 \
	VMASKMOVPD  (DI)(AX*8), Y4, Y3 \
	VFMADD231PD Y3, Y2, ACC

// func dotBandAsm(a, b []float64) float64
TEXT ·dotBandAsm(SB), NOSPLIT, $0-56
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   b_base+24(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ   AX, AX

dloop:
	LEAQ        8(AX), DX
	CMPQ        DX, CX
	JA          dtail
	VMOVUPD     (SI)(AX*8), Y2
	VFMADD231PD (DI)(AX*8), Y2, Y0
	VMOVUPD     32(SI)(AX*8), Y3
	VFMADD231PD 32(DI)(AX*8), Y3, Y1
	MOVQ        DX, AX
	JMP         dloop

dtail:
	MOVQ CX, DX
	SUBQ AX, DX // 0..7 left
	LEAQ bandmask<>(SB), R8
	CMPQ DX, $4
	JB   dshort
	VMOVUPD     (SI)(AX*8), Y2
	VFMADD231PD (DI)(AX*8), Y2, Y0
	ADDQ        $4, AX
	SUBQ        $4, DX
	MASKED(Y1)
	JMP         dsum

dshort:
	MASKED(Y0)

dsum:
	VADDPD       Y1, Y0, Y0 // s0+s4, s1+s5, s2+s6, s3+s7
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0 // (s0+s4)+(s2+s6), (s1+s5)+(s3+s7)
	VPERMILPD    $1, X0, X1
	VADDSD       X1, X0, X0
	VZEROUPPER
	MOVSD        X0, ret+48(FP)
	RET
