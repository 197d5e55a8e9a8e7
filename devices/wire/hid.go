package wire

import "errors"

// HID reports carry the same byte stream as a serial line: byte 0 is the
// number n of stream bytes in the report (0..63), bytes 1..n are those
// bytes, the rest is padding. Frames may span reports; a report may hold
// the end of one frame and the start of the next.
const (
	HIDReportSize = 64
	HIDPayload    = HIDReportSize - 1
)

// Report errors.
var (
	ErrReportEmpty  = errors.New("wire: empty HID report")
	ErrReportLength = errors.New("wire: HID report count exceeds the report")
)

// PutReport packs up to HIDPayload bytes of p into report, which must be
// HIDReportSize long, pads the rest with zeros and returns how many bytes
// of p it took.
func PutReport(report, p []byte) int {
	_ = report[HIDReportSize-1]
	n := copy(report[1:HIDReportSize], p)
	report[0] = byte(n)
	clear(report[1+n : HIDReportSize])
	return n
}

// ReportData returns the stream bytes report carries. A report shorter
// than HIDReportSize is accepted when its count fits in it (some stacks
// drop trailing padding); one whose count does not fit is rejected whole.
func ReportData(report []byte) ([]byte, error) {
	if len(report) == 0 {
		return nil, ErrReportEmpty
	}
	n := int(report[0])
	if n > HIDPayload || 1+n > len(report) {
		return nil, ErrReportLength
	}
	return report[1 : 1+n], nil
}
