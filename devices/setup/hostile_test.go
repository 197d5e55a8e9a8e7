package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/haptex/haptex/internal/safefile/safefiletest"
)

// Every hostile devices file is refused in little memory with one line
// naming the file and the limit; so is every hostile device description
// a devices file names as its kinematics (it named /dev/zero and ran out
// of memory before), and every hostile calibration file it names.
func TestHostileDevicesFiles(t *testing.T) {
	safefiletest.Refused(t, safefiletest.TOML(), func(path string) error {
		_, err := Load(path)
		return err
	})
	dir := t.TempDir()
	safefiletest.Refused(t, safefiletest.TOML(), func(path string) error {
		devs := filepath.Join(dir, "devices.toml")
		body := fmt.Sprintf("[thumb.exoskeleton]\nkind = \"serial\"\nport = \"/dev/ttyACM0\"\nkinematics = %q\n", path)
		if err := os.WriteFile(devs, []byte(body), 0o600); err != nil {
			return err
		}
		_, err := Load(devs)
		return err
	})
	// And every hostile calibration file it names.
	for _, key := range []string{"force_calibration", "kinematics_calibration"} {
		safefiletest.Refused(t, safefiletest.JSON(), func(path string) error {
			devs := filepath.Join(dir, "devices.toml")
			body := fmt.Sprintf("[index.exoskeleton]\nkind = \"serial\"\nport = \"/dev/ttyACM0\"\nkinematics = \"builtin\"\n%s = %q\n", key, path)
			if err := os.WriteFile(devs, []byte(body), 0o600); err != nil {
				return err
			}
			_, err := Load(devs)
			return err
		})
	}
}
