// Package calib turns measurements into parameters: fabrics (calib/kes),
// devices, and perception (calib/psych).
package calib
