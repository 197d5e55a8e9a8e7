#include "textflag.h"

// The vector kernels of the solve, in the order kernels.go sets out: the
// inner product (dot8Asm), the conjugate gradient's updates (axpyAsm),
// and the coarse level's restriction and prolongation (aggAddAsm),
// assembly (coarseAddAsm) and band kernels (bandFactorColAsm,
// bandSolveAsm). The inner product is DOT: Y0 holds the partial sums
// s0..s3, Y1 s4..s7, and the last 0 to 7 entries are loaded through a
// mask (masked lanes read as zero and add +0, which leaves a sum started
// from +0 unchanged), so nothing past either run is read. The band
// kernels update whole runs of entries with fused multiply-adds
// (VFNMADD231PD, math.FMA in the Go code), four at a time and the rest
// one by one; the other kernels make the Go code's single, unfused
// operations.

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

// DOT sets X0 to Σ SI[k]·DI[k] over k < CX in dot8's order. It uses
// AX, DX, R8, R9 and Y0-Y4, and its labels (once per function).
#define DOT \
	VXORPD       Y0, Y0, Y0               \
	VXORPD       Y1, Y1, Y1               \
	XORQ         AX, AX                   \
dloop:                                    \
	LEAQ         8(AX), DX                \
	CMPQ         DX, CX                   \
	JA           dtail                    \
	VMOVUPD      (SI)(AX*8), Y2           \
	VFMADD231PD  (DI)(AX*8), Y2, Y0       \
	VMOVUPD      32(SI)(AX*8), Y3         \
	VFMADD231PD  32(DI)(AX*8), Y3, Y1     \
	MOVQ         DX, AX                   \
	JMP          dloop                    \
dtail:                                    \
	MOVQ         CX, DX                   \
	SUBQ         AX, DX                   \
	LEAQ         bandmask<>(SB), R8       \
	CMPQ         DX, $4                   \
	JB           dshort                   \
	VMOVUPD      (SI)(AX*8), Y2           \
	VFMADD231PD  (DI)(AX*8), Y2, Y0       \
	ADDQ         $4, AX                   \
	SUBQ         $4, DX                   \
	MASKED(Y1)                            \
	JMP          dsum                     \
dshort:                                   \
	MASKED(Y0)                            \
dsum:                                     \
	VADDPD       Y1, Y0, Y0               \
	VEXTRACTF128 $1, Y0, X1               \
	VADDPD       X1, X0, X0               \
	VPERMILPD    $1, X0, X1               \
	VADDSD       X1, X0, X0

// func dot8Asm(a, b []float64) float64
TEXT ·dot8Asm(SB), NOSPLIT, $0-56
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	DOT
	VZEROUPPER
	MOVSD X0, ret+48(FP)
	RET

// NAXPY(D, S, N, LV, LT, LE) sets D[q] = fma(-X5, S[q], D[q]) for the N
// entries from D and S, four at a time (Y5 holding X5 in every lane), then
// one by one. It uses AX, DX and Y2, and its labels.
#define NAXPY(D, S, N, LV, LT, LE) \
	XORQ         AX, AX             \
LV:                                 \
	LEAQ         4(AX), DX          \
	CMPQ         DX, N              \
	JA           LT                 \
	VMOVUPD      (D)(AX*8), Y2      \
	VFNMADD231PD (S)(AX*8), Y5, Y2  \
	VMOVUPD      Y2, (D)(AX*8)      \
	MOVQ         DX, AX             \
	JMP          LV                 \
LT:                                 \
	CMPQ         AX, N              \
	JAE          LE                 \
	VMOVSD       (D)(AX*8), X2      \
	VFNMADD231SD (S)(AX*8), X5, X2  \
	VMOVSD       X2, (D)(AX*8)      \
	INCQ         AX                 \
	JMP          LT                 \
LE:

// func bandFactorColAsm(band, ut *float64, j, n, bw int, dj float64)
//
// CX = m rows below column j. R8 walks A[i][j] and DI the row segments
// A[i][j+1..i] (both a stride of bw entries from one row to the next), SI
// is Lᵀ[j][j+1..] in ut, BX = t.
TEXT ·bandFactorColAsm(SB), NOSPLIT, $0-48
	MOVQ    j+16(FP), AX
	MOVQ    n+24(FP), CX
	MOVQ    bw+32(FP), R9
	SUBQ    AX, CX
	DECQ    CX
	CMPQ    CX, R9
	CMOVQGT R9, CX // m = min(bw, n-1-j)
	TESTQ   CX, CX
	JLE     cdone
	LEAQ    1(R9), R10 // w
	MOVQ    AX, R11
	IMULQ   R10, R11
	MOVQ    ut+8(FP), SI
	LEAQ    8(SI)(R11*8), SI // &ut[j·w+1]
	ADDQ    R10, R11
	ADDQ    R9, R11
	MOVQ    band+0(FP), DI
	LEAQ    (DI)(R11*8), DI // &A[j+1][j+1]
	LEAQ    -8(DI), R8      // &A[j+1][j]
	SHLQ    $3, R9
	VMOVSD  dj+40(FP), X5
	XORQ    BX, BX

cscale:
	VMULSD (R8), X5, X0
	VMOVSD X0, (R8)
	VMOVSD X0, (SI)(BX*8)
	ADDQ   R9, R8
	INCQ   BX
	CMPQ   BX, CX
	JL     cscale
	XORQ   BX, BX

cupd:
	VBROADCASTSD (SI)(BX*8), Y5
	LEAQ         1(BX), R10 // the row's t+1 entries
	NAXPY(DI, SI, R10, cvec, ctail, cnext)
	ADDQ R9, DI
	INCQ BX
	CMPQ BX, CX
	JL   cupd

cdone:
	VZEROUPPER
	RET

// func bandSolveAsm(y, rc, band, ut, dinv *float64, n, bw int)
//
// DI = y, R8 = dinv, CX = n, R13 = bw, R11 = 8·w; BX is j (forward) or i
// (backward), X5 and Y5 that entry, R9 the entries it updates and SI the
// factor's entries they take (R10 of them).
TEXT ·bandSolveAsm(SB), NOSPLIT, $0-56
	MOVQ y+0(FP), DI
	MOVQ rc+8(FP), SI
	MOVQ n+40(FP), CX
	XORQ AX, AX

scopy:
	VMOVSD (SI)(AX*8), X0
	VMOVSD X0, (DI)(AX*8)
	INCQ   AX
	CMPQ   AX, CX
	JL     scopy
	MOVQ   bw+48(FP), R13
	LEAQ   8(R13*8), R11
	MOVQ   dinv+32(FP), R8
	MOVQ   ut+24(FP), SI
	ADDQ   $8, SI // &Lᵀ[0][1]
	XORQ   BX, BX

sfwd:
	VMOVSD       (DI)(BX*8), X5
	VMULSD       (R8)(BX*8), X5, X5
	VMOVSD       X5, (DI)(BX*8)
	VBROADCASTSD X5, Y5
	MOVQ         CX, R10
	SUBQ         BX, R10
	DECQ         R10
	CMPQ         R10, R13
	CMOVQGT      R13, R10 // m = min(bw, n-1-j)
	LEAQ         8(DI)(BX*8), R9
	NAXPY(R9, SI, R10, sfvec, sftail, sfnext)
	ADDQ R11, SI
	INCQ BX
	CMPQ BX, CX
	JL   sfwd
	DECQ BX

sbwd:
	VMOVSD       (DI)(BX*8), X5
	VMULSD       (R8)(BX*8), X5, X5
	VMOVSD       X5, (DI)(BX*8)
	VBROADCASTSD X5, Y5
	MOVQ         BX, R10
	CMPQ         R10, R13
	CMOVQGT      R13, R10 // i - lo = min(bw, i)
	MOVQ         BX, DX
	SUBQ         R10, DX
	LEAQ         (DI)(DX*8), R9 // &y[lo]
	MOVQ         R11, SI
	IMULQ        BX, SI
	ADDQ         band+16(FP), SI
	MOVQ         R13, DX
	SUBQ         R10, DX
	LEAQ         (SI)(DX*8), SI // &L[i][lo] = band + 8·(i·w + bw - (i-lo))
	NAXPY(R9, SI, R10, sbvec, sbtail, sbnext)
	DECQ BX
	JGE  sbwd
	VZEROUPPER
	RET

// func axpyAsm(dst, y, x *float64, n int, s float64)
TEXT ·axpyAsm(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         y+8(FP), SI
	MOVQ         x+16(FP), R8
	MOVQ         n+24(FP), CX
	VBROADCASTSD s+32(FP), Y5
	XORQ         AX, AX

xloop:
	LEAQ    4(AX), DX
	CMPQ    DX, CX
	JA      xtail
	VMULPD  (R8)(AX*8), Y5, Y2
	VADDPD  (SI)(AX*8), Y2, Y2
	VMOVUPD Y2, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     xloop

xtail:
	CMPQ   AX, CX
	JAE    xdone
	VMULSD (R8)(AX*8), X5, X2
	VADDSD (SI)(AX*8), X2, X2
	VMOVSD X2, (DI)(AX*8)
	INCQ   AX
	JMP    xtail

xdone:
	VZEROUPPER
	RET

// func aggAddAsm(dst, src *float64, sel *int32, n, m int, restrict bool) bool
//
// For node i, DX = 3·sel[i] and BX = 3·i; restrict (R10) picks which of
// the two indexes dst (R11) and which src (DX).
TEXT ·aggAddAsm(SB), NOSPLIT, $0-49
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    sel+16(FP), R8
	MOVQ    n+24(FP), CX
	MOVQ    m+32(FP), R9
	MOVBQZX restrict+40(FP), R10
	XORQ    AX, AX

aloop:
	MOVLQSX (R8)(AX*4), DX
	CMPQ    DX, R9
	JAE     abad
	LEAQ    (DX)(DX*2), DX
	LEAQ    (AX)(AX*2), BX
	MOVQ    BX, R11
	TESTQ   R10, R10
	CMOVQNE DX, R11
	CMOVQNE BX, DX
	VMOVUPD (DI)(R11*8), X0
	VADDPD  (SI)(DX*8), X0, X0
	VMOVUPD X0, (DI)(R11*8)
	VMOVSD  16(DI)(R11*8), X1
	VADDSD  16(SI)(DX*8), X1, X1
	VMOVSD  X1, 16(DI)(R11*8)
	INCQ    AX
	CMPQ    AX, CX
	JB      aloop
	MOVB    $1, ret+48(FP)
	RET

abad:
	MOVB $0, ret+48(FP)
	RET

// ENTRY(N) loads the entry at R8 (k into DX, o into BX, both unsigned, so
// a negative one is out of range), jumps to cbad unless k < N and
// o + 2bw + 3 <= len(band), and points SI at band[o].
#define ENTRY(N) \
	MOVLQZX 0(R8), DX     \
	MOVLQZX 4(R8), BX     \
	CMPQ    DX, N         \
	JAE     cbad          \
	LEAQ    (BX)(R11*1), AX \
	CMPQ    AX, R12       \
	JA      cbad          \
	LEAQ    (DI)(BX*8), SI

// ROW3(A, B) adds the block row at A(DX) (and B(DX) = A+16) to the three
// band entries from SI.
#define ROW3(A, B) \
	VMOVUPD (SI), X0        \
	VADDPD  A(DX), X0, X0   \
	VMOVUPD X0, (SI)        \
	VMOVSD  16(SI), X1      \
	VADDSD  B(DX), X1, X1   \
	VMOVSD  X1, 16(SI)

// func coarseAddAsm(band []float64, val [][3][3]float64, exVal []float64, full, lower, cpl []coarseEntry, bw int) bool
//
// R13 is 8·bw, the step between a block's rows in the band, and R11 is
// 2bw + 3, the span of an entry.
TEXT ·coarseAddAsm(SB), NOSPLIT, $0-153
	MOVQ band_base+0(FP), DI
	MOVQ band_len+8(FP), R12
	MOVQ bw+144(FP), R13
	LEAQ 3(R13)(R13*1), R11
	SHLQ $3, R13
	MOVQ val_base+24(FP), R10
	MOVQ val_len+32(FP), R9
	MOVQ full_base+72(FP), R8
	MOVQ full_len+80(FP), CX

cfull:
	TESTQ  CX, CX
	JZ     clow0
	ENTRY(R9)
	IMUL3Q $72, DX, DX
	ADDQ   R10, DX
	ROW3(0, 16)
	ADDQ   R13, SI
	ROW3(24, 40)
	ADDQ   R13, SI
	ROW3(48, 64)
	ADDQ   $8, R8
	DECQ   CX
	JMP    cfull

clow0:
	MOVQ lower_base+96(FP), R8
	MOVQ lower_len+104(FP), CX

clow:
	TESTQ   CX, CX
	JZ      ccpl0
	ENTRY(R9)
	IMUL3Q  $72, DX, DX
	ADDQ    R10, DX
	VMOVSD  (SI), X0
	VADDSD  (DX), X0, X0
	VMOVSD  X0, (SI)
	ADDQ    R13, SI
	VMOVUPD (SI), X0
	VADDPD  24(DX), X0, X0
	VMOVUPD X0, (SI)
	ADDQ    R13, SI
	ROW3(48, 64)
	ADDQ    $8, R8
	DECQ    CX
	JMP     clow

ccpl0:
	MOVQ exVal_base+48(FP), R10
	MOVQ exVal_len+56(FP), R9
	MOVQ cpl_base+120(FP), R8
	MOVQ cpl_len+128(FP), CX
	ADDQ $8, R13 // 8·(bw+1): the diagonal's step

ccpl:
	TESTQ  CX, CX
	JZ     cdone
	ENTRY(R9)
	VMOVSD (R10)(DX*8), X2
	VADDSD (SI), X2, X0
	VMOVSD X0, (SI)
	ADDQ   R13, SI
	VADDSD (SI), X2, X0
	VMOVSD X0, (SI)
	ADDQ   R13, SI
	VADDSD (SI), X2, X0
	VMOVSD X0, (SI)
	ADDQ   $8, R8
	DECQ   CX
	JMP    ccpl

cdone:
	MOVB $1, ret+152(FP)
	RET

cbad:
	MOVB $0, ret+152(FP)
	RET

// func negAsm(p *float64, n int)
//
// Flips the sign bit of n entries, four at a time and the rest one by one
// (Go's negation).
TEXT ·negAsm(SB), NOSPLIT, $0-16
	MOVQ     p+0(FP), DI
	MOVQ     n+8(FP), CX
	VPCMPEQQ Y5, Y5, Y5
	VPSLLQ   $63, Y5, Y5
	XORQ     AX, AX

nloop:
	LEAQ    4(AX), DX
	CMPQ    DX, CX
	JA      ntail
	VXORPD  (DI)(AX*8), Y5, Y2
	VMOVUPD Y2, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     nloop

ntail:
	CMPQ   AX, CX
	JAE    ndone
	VMOVSD (DI)(AX*8), X2
	VXORPD X5, X2, X2
	VMOVSD X2, (DI)(AX*8)
	INCQ   AX
	JMP    ntail

ndone:
	VZEROUPPER
	RET
