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
