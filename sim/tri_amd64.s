#include "textflag.h"

// addTriBlocksAsm, in the order kernels.go sets out for addTriBlocks: the
// nine entries of every 3×3 block are taken as entries 0-3 (one YMM
// register), 4-7 (another) and 8 (a scalar), and each group goes through
// the same unfused multiplies, adds and subtractions as the Go code does
// entry by entry. Y0-Y9 hold the broadcast coefficients p1, q1, s1, p2,
// q2, s2, e, f, h, k (their low lanes serve the scalar); CX points at m
// (u at 0, w at 72, v at 144, wᵀ at 216 bytes); AX, BX, SI, DI, R8-R12 at
// blocks 00, 01, 02, 10, 11, 12, 20, 21 and 22.

// SUM3(MUL, ADD, DST, A, CA, B, CB, C, CC, T) sets DST = (CA·A + CB·B) + CC·C,
// T a scratch register.
#define SUM3(MUL, ADD, DST, A, CA, B, CB, C, CC, T) \
	MUL A, CA, DST \
	MUL B, CB, T   \
	ADD T, DST, DST \
	MUL C, CC, T   \
	ADD T, DST, DST

// ADDTO(ADD, MOV, B, C, T) adds C to the entries at B.
#define ADDTO(ADD, MOV, B, C, T) \
	ADD B, C, T \
	MOV T, B

// SUBFROM(ADD, SUB, MOV, B, C, D, S, T) subtracts C + D from the entries at B.
#define SUBFROM(ADD, SUB, MOV, B, C, D, S, T) \
	ADD D, C, S \
	MOV B, T    \
	SUB S, T, T \
	MOV T, B

// GROUP(MUL, ADD, SUB, MOV, OFF, P1, Q1, S1, P2, Q2, S2, E, F, H, K,
// C11, C22, C12, C21, T0, T1) computes the entries at byte offset OFF of
// every block: T0 = w + wᵀ, the four c's, then the updates of blocks 11,
// 22, 12, 21, 01, 10, 02, 20 and 00.
#define GROUP(MUL, ADD, SUB, MOV, OFF, P1, Q1, S1, P2, Q2, S2, E, F, H, K, C11, C22, C12, C21, T0, T1) \
	MOV  72+OFF(CX), T0                                                  \
	ADD  216+OFF(CX), T0, T0                                             \
	SUM3(MUL, ADD, C11, OFF(CX), P1, T0, Q1, 144+OFF(CX), S1, T1)         \
	SUM3(MUL, ADD, C22, OFF(CX), P2, T0, Q2, 144+OFF(CX), S2, T1)         \
	SUM3(MUL, ADD, C12, OFF(CX), E, 72+OFF(CX), F, 216+OFF(CX), H, T1)    \
	MUL  144+OFF(CX), K, T1                                              \
	ADD  T1, C12, C12                                                    \
	SUM3(MUL, ADD, C21, OFF(CX), E, 216+OFF(CX), F, 72+OFF(CX), H, T1)    \
	MUL  144+OFF(CX), K, T1                                              \
	ADD  T1, C21, C21                                                    \
	ADDTO(ADD, MOV, OFF(R8), C11, T1)                                    \
	ADDTO(ADD, MOV, OFF(R12), C22, T1)                                   \
	ADDTO(ADD, MOV, OFF(R9), C12, T1)                                    \
	ADDTO(ADD, MOV, OFF(R11), C21, T1)                                   \
	SUBFROM(ADD, SUB, MOV, OFF(BX), C11, C21, T0, T1)                    \
	SUBFROM(ADD, SUB, MOV, OFF(DI), C11, C12, T0, T1)                    \
	SUBFROM(ADD, SUB, MOV, OFF(SI), C12, C22, T0, T1)                    \
	SUBFROM(ADD, SUB, MOV, OFF(R10), C21, C22, T0, T1)                   \
	ADD  C22, C11, C11                                                   \
	ADD  C21, C12, C12                                                   \
	ADD  C12, C11, C11                                                   \
	ADDTO(ADD, MOV, OFF(AX), C11, T1)

// BLOCKAT(K, R) sets R to the address of block tb[K]: DX is val, R13 tb.
#define BLOCKAT(K, R) \
	MOVLQSX K*4(R13), R  \
	IMUL3Q  $72, R, R    \
	ADDQ    DX, R

// func addTriBlocksAsm(val *[3][3]float64, tb *[9]int32, m *[4][3][3]float64, c *[10]float64)
TEXT ·addTriBlocksAsm(SB), NOSPLIT, $0-32
	MOVQ c+24(FP), R13
	VBROADCASTSD 0(R13), Y0
	VBROADCASTSD 8(R13), Y1
	VBROADCASTSD 16(R13), Y2
	VBROADCASTSD 24(R13), Y3
	VBROADCASTSD 32(R13), Y4
	VBROADCASTSD 40(R13), Y5
	VBROADCASTSD 48(R13), Y6
	VBROADCASTSD 56(R13), Y7
	VBROADCASTSD 64(R13), Y8
	VBROADCASTSD 72(R13), Y9
	MOVQ val+0(FP), DX
	MOVQ tb+8(FP), R13
	MOVQ m+16(FP), CX
	BLOCKAT(0, AX)
	BLOCKAT(1, BX)
	BLOCKAT(2, SI)
	BLOCKAT(3, DI)
	BLOCKAT(4, R8)
	BLOCKAT(5, R9)
	BLOCKAT(6, R10)
	BLOCKAT(7, R11)
	BLOCKAT(8, R12)
	GROUP(VMULPD, VADDPD, VSUBPD, VMOVUPD, 0, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	GROUP(VMULPD, VADDPD, VSUBPD, VMOVUPD, 32, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	GROUP(VMULSD, VADDSD, VSUBSD, VMOVSD, 64, X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15)
	VZEROUPPER
	RET

// triMatsAsm, in the order kernels.go sets out for triMats. Entries 0-3
// of the row-major 3×3 matrices are the pairs (a, d) = (0,0), (0,1),
// (0,2), (1,0), entries 4-7 (1,1), (1,2), (2,0), (2,1): VPERMPD spreads a
// unit vector's components over the four lanes as the a's (A) or the d's
// (D) of a group, straight from memory (each vector's fourth lane reads
// the next field of triGeom and is never used). Entry 8, (2,2), is done
// with scalars. SI points at g (û at 0, v̂ at 24, ŵ at 48, ẑ at 72 bytes),
// DX at k, CX at m.

DATA rsqrt2<>+0(SB)/8, $0x3FE6A09E667F3BCD // √½, as sqrt1_2 rounds it
GLOBL rsqrt2<>(SB), RODATA|NOPTR, $8

// DIAG(K, R, T, S) adds the coefficient at K(DX) to lane 0 of R only.
#define DIAG(K, R, T, S) \
	VBROADCASTSD K(DX), S \
	VADDPD       S, R, T  \
	VBLENDPD     $1, T, R, R

// PAIR(P, Q, C, R) sets R = C·(P·Q), C a coefficient register.
#define PAIR(P, Q, C, R) \
	VMULPD Q, P, R \
	VMULPD C, R, R

// TWO(P, Q, C, E, F) sets Y12 = C·(P·Q) + css·(E·F), Y13 scratch.
#define TWO(P, Q, C, E, F) \
	PAIR(P, Q, C, Y12)     \
	PAIR(E, F, Y14, Y13)   \
	VADDPD Y13, Y12, Y12

// OUT(K, DST) adds the coefficient at K(DX) to Y12's lane 0 and stores Y12.
#define OUT(K, DST) \
	DIAG(K, Y12, Y13, Y15) \
	VMOVUPD Y12, DST

// MATS4(OFF, IA, ID) computes the group of entries at byte offset OFF,
// its lanes' a's and d's picked by the VPERMPD selectors IA and ID:
// Y0 ww, Y1 wz, Y2 zz, Y3 cuv, Y4/Y5 eu (A/D), Y6/Y7 ev, Y8/Y9 û, Y10/Y11
// v̂, Y14 css.
#define MATS4(OFF, IA, ID) \
	VPERMPD      $IA, 48(SI), Y0      \
	VPERMPD      $ID, 48(SI), Y1      \
	VPERMPD      $IA, 72(SI), Y2      \
	VPERMPD      $ID, 72(SI), Y3      \
	VBROADCASTSD rsqrt2<>(SB), Y15    \
	VSUBPD       Y2, Y0, Y4           \
	VMULPD       Y15, Y4, Y4          \
	VSUBPD       Y3, Y1, Y5           \
	VMULPD       Y15, Y5, Y5          \
	VADDPD       Y2, Y0, Y6           \
	VMULPD       Y15, Y6, Y6          \
	VADDPD       Y3, Y1, Y7           \
	VMULPD       Y15, Y7, Y7          \
	VBROADCASTSD 24(DX), Y15          \
	PAIR(Y0, Y1, Y15, Y0)             \
	VBROADCASTSD 32(DX), Y15          \
	PAIR(Y2, Y3, Y15, Y2)             \
	VADDPD       Y2, Y0, Y1           \
	VPERMPD      $IA, 0(SI), Y8       \
	VPERMPD      $ID, 0(SI), Y9       \
	VPERMPD      $IA, 24(SI), Y10     \
	VPERMPD      $ID, 24(SI), Y11     \
	VBROADCASTSD 16(DX), Y14          \
	VBROADCASTSD 40(DX), Y3           \
	VBROADCASTSD 0(DX), Y15           \
	TWO(Y8, Y9, Y15, Y4, Y5)          \
	VSUBPD       Y1, Y12, Y12         \
	OUT(48, OFF(CX))                  \
	VBROADCASTSD 8(DX), Y15           \
	TWO(Y10, Y11, Y15, Y6, Y7)        \
	VSUBPD       Y1, Y12, Y12         \
	OUT(56, 144+OFF(CX))              \
	TWO(Y8, Y11, Y3, Y4, Y7)          \
	VSUBPD       Y0, Y12, Y12         \
	VADDPD       Y2, Y12, Y12         \
	OUT(64, 72+OFF(CX))               \
	TWO(Y10, Y9, Y3, Y6, Y5)          \
	VSUBPD       Y0, Y12, Y12         \
	VADDPD       Y2, Y12, Y12         \
	OUT(64, 216+OFF(CX))

// SPAIR(P, Q, C, R) is PAIR for scalars, C a register or memory.
#define SPAIR(P, Q, C, R) \
	VMULSD Q, P, R \
	VMULSD C, R, R

// STWO(P, Q, C, E, F) is TWO for scalars, C a register or memory.
#define STWO(P, Q, C, E, F) \
	SPAIR(P, Q, C, X12)     \
	SPAIR(E, F, X14, X13)   \
	VADDSD X13, X12, X12

// func triMatsAsm(m *[4][3][3]float64, geo *triGeom, k *[9]float64)
TEXT ·triMatsAsm(SB), NOSPLIT, $0-24
	MOVQ m+0(FP), CX
	MOVQ geo+8(FP), SI
	MOVQ k+16(FP), DX
	MATS4(0, 0x40, 0x24)
	MATS4(32, 0xA5, 0x49)

	// Entry 8: X0 ww, X1 wz, X2 zz, X4 eu, X6 ev, X8 û, X10 v̂, X14 css.
	VMOVSD rsqrt2<>(SB), X15
	VMOVSD 64(SI), X0
	VMOVSD 88(SI), X2
	VSUBSD X2, X0, X4
	VMULSD X15, X4, X4
	VADDSD X2, X0, X6
	VMULSD X15, X6, X6
	SPAIR(X0, X0, 24(DX), X0)
	SPAIR(X2, X2, 32(DX), X2)
	VADDSD X2, X0, X1
	VMOVSD 16(SI), X8
	VMOVSD 40(SI), X10
	VMOVSD 16(DX), X14
	STWO(X8, X8, 0(DX), X4, X4)
	VSUBSD X1, X12, X12
	VADDSD 48(DX), X12, X12
	VMOVSD X12, 64(CX)
	STWO(X10, X10, 8(DX), X6, X6)
	VSUBSD X1, X12, X12
	VADDSD 56(DX), X12, X12
	VMOVSD X12, 208(CX)
	STWO(X8, X10, 40(DX), X4, X6)
	VSUBSD X0, X12, X12
	VADDSD X2, X12, X12
	VADDSD 64(DX), X12, X12
	VMOVSD X12, 136(CX)
	VMOVSD X12, 280(CX)
	VZEROUPPER
	RET
