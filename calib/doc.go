// Package calib turns measurements into parameters: fabrics (calib/kes),
// devices (calib/device) and perception (calib/psych). The package itself
// holds what every calibration shares: LinearLeastSquares, a linear
// least-squares solve that reports residuals, standard errors and the
// conditioning of the measurements. It reads no files and no devices.
package calib
