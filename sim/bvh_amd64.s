#include "textflag.h"

// dopMinMaxAsm: lo = min(lo, a), hi = max(hi, b), nine entries each, with
// VMINPD and VMAXPD (bvh.go's dopMinMax).

// func dopMinMaxAsm(lo, hi, a, b *[9]float64)
TEXT ·dopMinMaxAsm(SB), NOSPLIT, $0-32
	MOVQ    lo+0(FP), AX
	MOVQ    hi+8(FP), BX
	MOVQ    a+16(FP), CX
	MOVQ    b+24(FP), DX
	VMOVUPD (AX), Y0
	VMOVUPD 32(AX), Y1
	VMOVSD  64(AX), X2
	VMINPD  (CX), Y0, Y0
	VMINPD  32(CX), Y1, Y1
	VMINSD  64(CX), X2, X2
	VMOVUPD Y0, (AX)
	VMOVUPD Y1, 32(AX)
	VMOVSD  X2, 64(AX)
	VMOVUPD (BX), Y3
	VMOVUPD 32(BX), Y4
	VMOVSD  64(BX), X5
	VMAXPD  (DX), Y3, Y3
	VMAXPD  32(DX), Y4, Y4
	VMAXSD  64(DX), X5, X5
	VMOVUPD Y3, (BX)
	VMOVUPD Y4, 32(BX)
	VMOVSD  X5, 64(BX)
	VZEROUPPER
	RET
