#include "textflag.h"

// The kernels of kernels.go, in the order of operations it sets out.
// Registers, lane c of a Y register being column c (lane 3 is scratch):
//
//	Y0, Y1, Y2    p[0] rows 0, 1, 2     Y8, Y9, Y10   p[1]
//	Y5, Y6        e[0], e[1]            Y11, Y12      e[2], e[3]
//	Y3            the triple of x       Y4            a block's row 2, a coupling
//	Y7            the lane mask
//
// A block's rows 0 and 1 are loaded whole, which reads the next row's
// first entry into lane 3; row 2 through the mask, as it may end the
// slice. Every index is checked: a column must satisfy 3·col+3 <= len(x),
// a range's ends must be <= the length of what they index; a failed check
// returns false.

// The first three lanes.
DATA lanes3<>+0(SB)/8, $-1
DATA lanes3<>+8(SB)/8, $-1
DATA lanes3<>+16(SB)/8, $-1
DATA lanes3<>+24(SB)/8, $0
GLOBL lanes3<>(SB), RODATA|NOPTR, $32

// COLUMN(C) loads 3·C[CX] into AX, C[CX] checked to be below the number
// of x's whole triples in R8 (unsigned, so a negative one fails).
#define COLUMN(C) \
	MOVLQSX (C)(CX*4), AX \
	CMPQ    AX, R8        \
	JAE     bad           \
	LEAQ    (AX)(AX*2), AX

// TRIPLES(LEN) sets R8 to LEN/3, clobbering AX, DX and R9.
#define TRIPLES(LEN) \
	MOVQ LEN, AX \
	XORQ DX, DX  \
	MOVQ $3, R9  \
	DIVQ R9      \
	MOVQ AX, R8

// XSPLIT loads the triple at AX of x (at SI) into Y3, lane 3 zero, in two
// loads matching the two stores gsSweepAsm writes a triple with, so that a
// row reads the one the row before it wrote without a store-forwarding
// stall, and nothing past the triple is read.
#define XSPLIT \
	VMOVUPD     (SI)(AX*8), X3   \
	VMOVSD      16(SI)(AX*8), X4 \
	VINSERTF128 $1, X4, Y3, Y3

// XMASK loads the same as XSPLIT in one masked load, for mulRowsAsm, whose
// x no row writes.
#define XMASK \
	VMASKMOVPD (SI)(AX*8), Y7, Y3

// BLOCK(LOADX, A0, A1, A2) adds block CX of val (at DX) times x's triple
// at its column (col at DI) to A0, A1, A2.
#define BLOCK(LOADX, A0, A1, A2) \
	COLUMN(DI)                 \
	LOADX                      \
	LEAQ        (CX)(CX*8), R9 \
	LEAQ        (DX)(R9*8), R9 \
	VFMADD231PD (R9), Y3, A0   \
	VFMADD231PD 24(R9), Y3, A1 \
	VMASKMOVPD  48(R9), Y7, Y4 \
	VFMADD231PD Y4, Y3, A2     \
	INCQ        CX

// BLOCKS(LOADX, labels) adds blocks CX..BX-1, two at a time into p[0] and p[1].
#define BLOCKS(LOADX, L2, L1, L0) \
L2:                              \
	LEAQ  1(CX), R9                \
	CMPQ  R9, BX                   \
	JGE   L1                     \
	BLOCK(LOADX, Y0, Y1, Y2)       \
	BLOCK(LOADX, Y8, Y9, Y10)      \
	JMP   L2                     \
L1:                              \
	CMPQ  CX, BX                   \
	JGE   L0                     \
	BLOCK(LOADX, Y0, Y1, Y2)       \
L0:

// COUPLING(LOADX, E) adds coupling CX (columns at DX, values at DI) times
// x's triple to E.
#define COUPLING(LOADX, E) \
	COLUMN(DX)                  \
	LOADX                       \
	VBROADCASTSD (DI)(CX*8), Y4 \
	VFMADD231PD  Y4, Y3, E      \
	INCQ         CX

// COUPLINGS(LOADX, labels) adds couplings CX..BX-1, four at a time into e[0..3].
#define COUPLINGS(LOADX, L4, L1, L0) \
L4:                          \
	LEAQ 3(CX), R9             \
	CMPQ R9, BX                \
	JGE  L1                  \
	COUPLING(LOADX, Y5)        \
	COUPLING(LOADX, Y6)        \
	COUPLING(LOADX, Y11)       \
	COUPLING(LOADX, Y12)       \
	JMP  L4                  \
L1:                          \
	CMPQ CX, BX                \
	JGE  L0                  \
	COUPLING(LOADX, Y5)        \
	CMPQ CX, BX                \
	JGE  L0                  \
	COUPLING(LOADX, Y6)        \
	CMPQ CX, BX                \
	JGE  L0                  \
	COUPLING(LOADX, Y11)       \
L0:

// RANGE(LO, HI, N) loads LO[i] into CX and HI[i] into BX, for the row i
// in R13, each checked to be at most N.
#define RANGE(LO, HI, N) \
	MOVQ    LO, AX          \
	MOVLQSX (AX)(R13*4), CX \
	MOVQ    HI, AX          \
	MOVLQSX (AX)(R13*4), BX \
	CMPQ    CX, N           \
	JA      bad             \
	CMPQ    BX, N           \
	JA      bad

#define ZERO \
	VXORPD Y0, Y0, Y0    \
	VXORPD Y1, Y1, Y1    \
	VXORPD Y2, Y2, Y2    \
	VXORPD Y8, Y8, Y8    \
	VXORPD Y9, Y9, Y9    \
	VXORPD Y10, Y10, Y10 \
	VXORPD Y5, Y5, Y5    \
	VXORPD Y6, Y6, Y6    \
	VXORPD Y11, Y11, Y11 \
	VXORPD Y12, Y12, Y12

// TOTAL sets Y0..Y2 to P = p[0] + p[1] and Y5 to E, then E's rows to
// X5[0], X10[0], X6[0].
#define TOTAL \
	VADDPD       Y8, Y0, Y0   \
	VADDPD       Y9, Y1, Y1   \
	VADDPD       Y10, Y2, Y2  \
	VADDPD       Y6, Y5, Y5   \
	VADDPD       Y12, Y11, Y11 \
	VADDPD       Y11, Y5, Y5  \
	VEXTRACTF128 $1, Y5, X6   \
	VPERMILPD    $1, X5, X10

// ROWSUM(Y, X) sets X9[0] to (P[r][0] + P[r][1]) + P[r][2] for Y = Y0, Y1
// or Y2 (X the same register).
#define ROWSUM(Y, X) \
	VEXTRACTF128 $1, Y, X8 \
	VHADDPD      X, X, X9  \
	VADDSD       X8, X9, X9

// The three-vector kernels, mulRows3Asm and gsSweep3Asm: the same rows
// for three vectors x₀, x₁, x₂ (at SI, R10, R11) in one pass, each
// vector's arithmetic that of mulRowsAsm or gsSweepAsm on it alone, so
// that every result is bit for bit the same. A block's rows are loaded
// once (Y4, Y5, Y6) for the three. The partial sums p[0] and p[1] of
// the three vectors (18 registers) do not fit: the blocks at even places
// of the row's ranges are summed first (Y0-Y2, Y8-Y10, Y11-Y13 for x₀,
// x₁, x₂), kept on the stack, then those at odd places; each entry's
// chain of fused multiply-adds is the one the one-vector kernels make.
// Then each vector's couplings and the row's end, as there.

#define XM1 VMASKMOVPD (R10)(AX*8), Y7, Y3
#define XM2 VMASKMOVPD (R11)(AX*8), Y7, Y3

#define XS0 \
	VMOVUPD     (SI)(AX*8), X3    \
	VMOVSD      16(SI)(AX*8), X15 \
	VINSERTF128 $1, X15, Y3, Y3

#define XS1 \
	VMOVUPD     (R10)(AX*8), X3    \
	VMOVSD      16(R10)(AX*8), X15 \
	VINSERTF128 $1, X15, Y3, Y3

#define XS2 \
	VMOVUPD     (R11)(AX*8), X3    \
	VMOVSD      16(R11)(AX*8), X15 \
	VINSERTF128 $1, X15, Y3, Y3

// BLOCK3(L0, L1, L2) adds block CX of val (at DX) times the three
// vectors' triples at its column (col at DI) to their sums, then moves CX
// two blocks on.
#define BLOCK3(L0, L1, L2) \
	COLUMN(DI)                 \
	LEAQ        (CX)(CX*8), R9 \
	LEAQ        (DX)(R9*8), R9 \
	VMOVUPD     (R9), Y4       \
	VMOVUPD     24(R9), Y5     \
	VMASKMOVPD  48(R9), Y7, Y6 \
	L0                         \
	VFMADD231PD Y4, Y3, Y0     \
	VFMADD231PD Y5, Y3, Y1     \
	VFMADD231PD Y6, Y3, Y2     \
	L1                         \
	VFMADD231PD Y4, Y3, Y8     \
	VFMADD231PD Y5, Y3, Y9     \
	VFMADD231PD Y6, Y3, Y10    \
	L2                         \
	VFMADD231PD Y4, Y3, Y11    \
	VFMADD231PD Y5, Y3, Y12    \
	VFMADD231PD Y6, Y3, Y13    \
	ADDQ        $2, CX

// EVERY2(L0, L1, L2, labels) adds blocks CX, CX+2, … below BX.
#define EVERY2(L0, L1, L2, LL, LD) \
LL:                       \
	CMPQ CX, BX             \
	JGE  LD               \
	BLOCK3(L0, L1, L2)      \
	JMP  LL               \
LD:

#define ZERO9 \
	VXORPD Y0, Y0, Y0    \
	VXORPD Y1, Y1, Y1    \
	VXORPD Y2, Y2, Y2    \
	VXORPD Y8, Y8, Y8    \
	VXORPD Y9, Y9, Y9    \
	VXORPD Y10, Y10, Y10 \
	VXORPD Y11, Y11, Y11 \
	VXORPD Y12, Y12, Y12 \
	VXORPD Y13, Y13, Y13

#define SPILL9 \
	VMOVUPD Y0, 0(SP)    \
	VMOVUPD Y1, 32(SP)   \
	VMOVUPD Y2, 64(SP)   \
	VMOVUPD Y8, 96(SP)   \
	VMOVUPD Y9, 128(SP)  \
	VMOVUPD Y10, 160(SP) \
	VMOVUPD Y11, 192(SP) \
	VMOVUPD Y12, 224(SP) \
	VMOVUPD Y13, 256(SP)

// ADDP(OFF, Y) sets Y to p[0] + p[1], p[0] at OFF(SP) and p[1] in Y, in
// the one-vector kernels' order of operands.
#define ADDP(OFF, Y) \
	VMOVUPD OFF(SP), Y14 \
	VADDPD  Y, Y14, Y

// ROWSUM3(Y, X, OFF) stores (P[r][0] + P[r][1]) + P[r][2] at OFF(SP).
#define ROWSUM3(Y, X, OFF) \
	VEXTRACTF128 $1, Y, X14 \
	VHADDPD      X, X, X15  \
	VADDSD       X14, X15, X15 \
	VMOVSD       X15, OFF(SP)

// SUMS9 sets P = p[0] + p[1] for the three vectors and stores their
// rows' block parts at 288(SP) + 8·(3v + r).
#define SUMS9 \
	ADDP(0, Y0)             \
	ADDP(32, Y1)            \
	ADDP(64, Y2)            \
	ADDP(96, Y8)            \
	ADDP(128, Y9)           \
	ADDP(160, Y10)          \
	ADDP(192, Y11)          \
	ADDP(224, Y12)          \
	ADDP(256, Y13)          \
	ROWSUM3(Y0, X0, 288)    \
	ROWSUM3(Y1, X1, 296)    \
	ROWSUM3(Y2, X2, 304)    \
	ROWSUM3(Y8, X8, 312)    \
	ROWSUM3(Y9, X9, 320)    \
	ROWSUM3(Y10, X10, 328)  \
	ROWSUM3(Y11, X11, 336)  \
	ROWSUM3(Y12, X12, 344)  \
	ROWSUM3(Y13, X13, 352)

// COUPLING3(L0, L1, L2, E0, E1, E2) adds coupling CX (columns at DX,
// values at DI) times the three vectors' triples to E0, E1, E2.
#define COUPLING3(L0, L1, L2, E0, E1, E2) \
	COLUMN(DX)                   \
	VBROADCASTSD (DI)(CX*8), Y14 \
	L0                           \
	VFMADD231PD  Y14, Y3, E0     \
	L1                           \
	VFMADD231PD  Y14, Y3, E1     \
	L2                           \
	VFMADD231PD  Y14, Y3, E2     \
	INCQ         CX

// COUPLINGS3(L0, L1, L2, labels) adds couplings CX..BX-1, four at a time
// into e[0..3]: Y0, Y1, Y2, Y8 for x₀, Y9-Y12 for x₁, Y13, Y4, Y5, Y6
// for x₂.
#define COUPLINGS3(L0, L1, L2, LB4, LB1, LB0) \
LB4:                                      \
	LEAQ 3(CX), R9                          \
	CMPQ R9, BX                             \
	JGE  LB1                              \
	COUPLING3(L0, L1, L2, Y0, Y9, Y13)      \
	COUPLING3(L0, L1, L2, Y1, Y10, Y4)      \
	COUPLING3(L0, L1, L2, Y2, Y11, Y5)      \
	COUPLING3(L0, L1, L2, Y8, Y12, Y6)      \
	JMP  LB4                              \
LB1:                                      \
	CMPQ CX, BX                             \
	JGE  LB0                              \
	COUPLING3(L0, L1, L2, Y0, Y9, Y13)      \
	CMPQ CX, BX                             \
	JGE  LB0                              \
	COUPLING3(L0, L1, L2, Y1, Y10, Y4)      \
	CMPQ CX, BX                             \
	JGE  LB0                              \
	COUPLING3(L0, L1, L2, Y2, Y11, Y5)      \
LB0:

#define ZERO12 \
	ZERO9                \
	VXORPD Y4, Y4, Y4    \
	VXORPD Y5, Y5, Y5    \
	VXORPD Y6, Y6, Y6

// ETOTAL3(YA, YB, YC, YD, XA, XB, XC) sets one vector's E from its
// partial sums e[0..3] in YA..YD, as TOTAL does: its rows to XA[0],
// XB[0], XC[0].
#define ETOTAL3(YA, YB, YC, YD, XA, XB, XC) \
	VADDPD       YB, YA, YA \
	VADDPD       YD, YC, YC \
	VADDPD       YC, YA, YA \
	VEXTRACTF128 $1, YA, XC \
	VPERMILPD    $1, XA, XB

// MEND3(V, OFF, XA, XB, XC) writes row R13 of dst[V]: the blocks' part
// at OFF(SP) plus E (rows in XA, XB, XC).
#define MEND3(V, OFF, XA, XB, XC) \
	MOVQ   dst+0(FP), R9    \
	MOVQ   (V*8)(R9), R9    \
	LEAQ   (R13)(R13*2), AX \
	VMOVSD OFF(SP), X3      \
	VADDSD XA, X3, X3       \
	VMOVSD X3, (R9)(AX*8)   \
	VMOVSD (OFF+8)(SP), X3  \
	VADDSD XB, X3, X3       \
	VMOVSD X3, 8(R9)(AX*8)  \
	VMOVSD (OFF+16)(SP), X3 \
	VADDSD XC, X3, X3       \
	VMOVSD X3, 16(R9)(AX*8)

// SEND3(V, OFF, B, XA, XB, XC, XD) sets row R13 of z[V] (at B) to
// dinv·s, s = (rhs[V]'s row − the blocks' part at OFF(SP)) − E (E's rows
// in XA, XB, XC; XD scratch), as gsSweepAsm does.
#define SEND3(V, OFF, B, XA, XB, XC, XD) \
	MOVQ        rhs+8(FP), R9          \
	MOVQ        (V*8)(R9), R9          \
	LEAQ        (R13)(R13*2), AX       \
	VMOVSD      (R9)(AX*8), XD         \
	VSUBSD      OFF(SP), XD, XD        \
	VSUBSD      XA, XD, XD             \
	VMOVSD      8(R9)(AX*8), X3        \
	VSUBSD      (OFF+8)(SP), X3, X3    \
	VSUBSD      XB, X3, X3             \
	VMOVSD      16(R9)(AX*8), X14      \
	VSUBSD      (OFF+16)(SP), X14, X14 \
	VSUBSD      XC, X14, X14           \
	MOVQ        dinv_base+240(FP), R9  \
	LEAQ        (R13)(R13*8), CX       \
	LEAQ        (R9)(CX*8), R9         \
	VMULSD      (R9), XD, XA           \
	VFMADD231SD 8(R9), X3, XA          \
	VFMADD231SD 16(R9), X14, XA        \
	VMULSD      24(R9), XD, XB         \
	VFMADD231SD 32(R9), X3, XB         \
	VFMADD231SD 40(R9), X14, XB        \
	VMULSD      48(R9), XD, XC         \
	VFMADD231SD 56(R9), X3, XC         \
	VFMADD231SD 64(R9), X14, XC        \
	VUNPCKLPD   XB, XA, XA             \
	VMOVUPD     XA, (B)(AX*8)          \
	VMOVSD      XC, 16(B)(AX*8)

// func mulRowsAsm(dst, x []float64, lo, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64) (ok bool)
TEXT ·mulRowsAsm(SB), NOSPLIT, $0-241
	MOVQ    dst_base+0(FP), R12
	MOVQ    x_base+24(FP), SI
	TRIPLES(x_len+32(FP))
	MOVQ    col_len+104(FP), R11
	MOVQ    exCol_len+200(FP), R10
	VMOVDQU lanes3<>(SB), Y7
	XORQ    R13, R13

mrow:
	CMPQ    R13, lo_len+56(FP)
	JGE     mdone
	RANGE(lo_base+48(FP), hi_base+72(FP), R11)
	ZERO
	MOVQ    col_base+96(FP), DI
	MOVQ    val_base+120(FP), DX
	BLOCKS(XMASK, mb2, mb1, mb0)

	RANGE(exLo_base+144(FP), exHi_base+168(FP), R10)
	MOVQ    exCol_base+192(FP), DX
	MOVQ    exVal_base+216(FP), DI
	COUPLINGS(XMASK, me4, me1, me0)

	TOTAL
	LEAQ   (R13)(R13*2), AX
	ROWSUM(Y0, X0)
	VADDSD X5, X9, X9
	VMOVSD X9, (R12)(AX*8)
	ROWSUM(Y1, X1)
	VADDSD X10, X9, X9
	VMOVSD X9, 8(R12)(AX*8)
	ROWSUM(Y2, X2)
	VADDSD X6, X9, X9
	VMOVSD X9, 16(R12)(AX*8)
	INCQ   R13
	JMP    mrow

mdone:
	MOVB $1, ok+240(FP)
	VZEROUPPER
	RET

bad:
	MOVB $0, ok+240(FP)
	VZEROUPPER
	RET

// func gsSweepAsm(z, rhs []float64, lo, mid, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64, dinv [][3][3]float64, backward bool) (ok bool)
TEXT ·gsSweepAsm(SB), NOSPLIT, $0-297
	MOVQ    z_base+0(FP), SI
	TRIPLES(z_len+8(FP))
	MOVQ    rhs_base+24(FP), R12
	MOVQ    col_len+128(FP), R11
	MOVQ    exCol_len+224(FP), R10
	VMOVDQU lanes3<>(SB), Y7
	XORQ    R13, R13
	MOVQ    lo_len+56(FP), BX
	TESTQ   BX, BX
	JZ      sdone
	MOVBLZX backward+288(FP), AX
	TESTQ   AX, AX
	JZ      srow
	LEAQ    -1(BX), R13

srow:
	RANGE(lo_base+48(FP), mid_base+72(FP), R11)
	ZERO
	MOVQ    col_base+120(FP), DI
	MOVQ    val_base+144(FP), DX
	BLOCKS(XSPLIT, sl2, sl1, sl0)

	MOVQ    mid_base+72(FP), AX
	MOVLQSX (AX)(R13*4), CX
	INCQ    CX
	MOVQ    hi_base+96(FP), AX
	MOVLQSX (AX)(R13*4), BX
	CMPQ    BX, R11
	JA      bad
	BLOCKS(XSPLIT, su2, su1, su0)

	RANGE(exLo_base+168(FP), exHi_base+192(FP), R10)
	MOVQ    exCol_base+216(FP), DX
	MOVQ    exVal_base+240(FP), DI
	COUPLINGS(XSPLIT, se4, se1, se0)

	// s = (rhs - blocks' part) - E, row by row, into X11, X12, X13.
	TOTAL
	LEAQ   (R13)(R13*2), AX
	ROWSUM(Y0, X0)
	VMOVSD (R12)(AX*8), X11
	VSUBSD X9, X11, X11
	VSUBSD X5, X11, X11
	ROWSUM(Y1, X1)
	VMOVSD 8(R12)(AX*8), X12
	VSUBSD X9, X12, X12
	VSUBSD X10, X12, X12
	ROWSUM(Y2, X2)
	VMOVSD 16(R12)(AX*8), X13
	VSUBSD X9, X13, X13
	VSUBSD X6, X13, X13

	// z[i] = dinv[i]·s, row by row.
	MOVQ        dinv_base+264(FP), R9
	LEAQ        (R13)(R13*8), CX
	LEAQ        (R9)(CX*8), R9
	VMULSD      (R9), X11, X14
	VFMADD231SD 8(R9), X12, X14
	VFMADD231SD 16(R9), X13, X14
	VMULSD      24(R9), X11, X15
	VFMADD231SD 32(R9), X12, X15
	VFMADD231SD 40(R9), X13, X15
	VMULSD      48(R9), X11, X3
	VFMADD231SD 56(R9), X12, X3
	VFMADD231SD 64(R9), X13, X3
	VUNPCKLPD   X15, X14, X14
	VMOVUPD     X14, (SI)(AX*8)
	VMOVSD      X3, 16(SI)(AX*8)

	MOVBLZX backward+288(FP), CX
	TESTQ   CX, CX
	JNZ     sback
	INCQ    R13
	CMPQ    R13, lo_len+56(FP)
	JL      srow
	JMP     sdone

sback:
	DECQ R13
	JGE  srow

sdone:
	MOVB $1, ok+296(FP)
	VZEROUPPER
	RET

bad:
	MOVB $0, ok+296(FP)
	VZEROUPPER
	RET

// func mulRows3Asm(dst, x *[3]*float64, nx int, lo, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64) (ok bool)
TEXT ·mulRows3Asm(SB), NOSPLIT, $384-217
	MOVQ    x+8(FP), AX
	MOVQ    (AX), SI
	MOVQ    8(AX), R10
	MOVQ    16(AX), R11
	TRIPLES(nx+16(FP))
	MOVQ    col_len+80(FP), R12
	MOVQ    exCol_len+176(FP), R14
	VMOVDQU lanes3<>(SB), Y7
	XORQ    R13, R13

m3row:
	CMPQ R13, lo_len+32(FP)
	JGE  m3done
	RANGE(lo_base+24(FP), hi_base+48(FP), R12)
	MOVQ col_base+72(FP), DI
	MOVQ val_base+96(FP), DX
	ZERO9
	EVERY2(XMASK, XM1, XM2, m3e, m3ed)
	SPILL9
	ZERO9
	MOVQ    lo_base+24(FP), AX
	MOVLQSX (AX)(R13*4), CX
	INCQ    CX
	EVERY2(XMASK, XM1, XM2, m3o, m3od)
	SUMS9

	RANGE(exLo_base+120(FP), exHi_base+144(FP), R14)
	MOVQ exCol_base+168(FP), DX
	MOVQ exVal_base+192(FP), DI
	ZERO12
	COUPLINGS3(XMASK, XM1, XM2, m3c4, m3c1, m3c0)
	ETOTAL3(Y0, Y1, Y2, Y8, X0, X1, X2)
	MEND3(0, 288, X0, X1, X2)
	ETOTAL3(Y9, Y10, Y11, Y12, X9, X10, X11)
	MEND3(1, 312, X9, X10, X11)
	ETOTAL3(Y13, Y4, Y5, Y6, X13, X4, X5)
	MEND3(2, 336, X13, X4, X5)
	INCQ R13
	JMP  m3row

m3done:
	MOVB $1, ok+216(FP)
	VZEROUPPER
	RET

bad:
	MOVB $0, ok+216(FP)
	VZEROUPPER
	RET

// func gsSweep3Asm(z, rhs *[3]*float64, nz int, lo, mid, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64, dinv [][3][3]float64, backward bool) (ok bool)
TEXT ·gsSweep3Asm(SB), NOSPLIT, $384-273
	MOVQ    z+0(FP), AX
	MOVQ    (AX), SI
	MOVQ    8(AX), R10
	MOVQ    16(AX), R11
	TRIPLES(nz+16(FP))
	MOVQ    col_len+104(FP), R12
	MOVQ    exCol_len+200(FP), R14
	VMOVDQU lanes3<>(SB), Y7
	XORQ    R13, R13
	MOVQ    lo_len+32(FP), BX
	TESTQ   BX, BX
	JZ      s3done
	MOVBLZX backward+264(FP), AX
	TESTQ   AX, AX
	JZ      s3row
	LEAQ    -1(BX), R13

s3row:
	// The blocks at even places of the lower range, then of the upper.
	RANGE(lo_base+24(FP), mid_base+48(FP), R12)
	MOVQ    col_base+96(FP), DI
	MOVQ    val_base+120(FP), DX
	ZERO9
	EVERY2(XS0, XS1, XS2, s3le, s3led)
	MOVQ    mid_base+48(FP), AX
	MOVLQSX (AX)(R13*4), CX
	INCQ    CX
	MOVQ    hi_base+72(FP), AX
	MOVLQSX (AX)(R13*4), BX
	CMPQ    BX, R12
	JA      bad
	EVERY2(XS0, XS1, XS2, s3ue, s3ued)
	SPILL9

	// Those at odd places.
	ZERO9
	MOVQ    lo_base+24(FP), AX
	MOVLQSX (AX)(R13*4), CX
	INCQ    CX
	MOVQ    mid_base+48(FP), AX
	MOVLQSX (AX)(R13*4), BX
	EVERY2(XS0, XS1, XS2, s3lo, s3lod)
	MOVQ    mid_base+48(FP), AX
	MOVLQSX (AX)(R13*4), CX
	ADDQ    $2, CX
	MOVQ    hi_base+72(FP), AX
	MOVLQSX (AX)(R13*4), BX
	EVERY2(XS0, XS1, XS2, s3uo, s3uod)
	SUMS9

	RANGE(exLo_base+144(FP), exHi_base+168(FP), R14)
	MOVQ exCol_base+192(FP), DX
	MOVQ exVal_base+216(FP), DI
	ZERO12
	COUPLINGS3(XS0, XS1, XS2, s3c4, s3c1, s3c0)
	ETOTAL3(Y0, Y1, Y2, Y8, X0, X1, X2)
	SEND3(0, 288, SI, X0, X1, X2, X8)
	ETOTAL3(Y9, Y10, Y11, Y12, X9, X10, X11)
	SEND3(1, 312, R10, X9, X10, X11, X12)
	ETOTAL3(Y13, Y4, Y5, Y6, X13, X4, X5)
	SEND3(2, 336, R11, X13, X4, X5, X6)

	MOVBLZX backward+264(FP), CX
	TESTQ   CX, CX
	JNZ     s3back
	INCQ    R13
	CMPQ    R13, lo_len+32(FP)
	JL      s3row
	JMP     s3done

s3back:
	DECQ R13
	JGE  s3row

s3done:
	MOVB $1, ok+272(FP)
	VZEROUPPER
	RET

bad:
	MOVB $0, ok+272(FP)
	VZEROUPPER
	RET
