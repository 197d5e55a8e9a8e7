package rig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// Handlings are the handling scripts a session can play by name
// (Config.Handling; haptex run -script, haptex snapshot -script):
// "showcase" (devices/twin's DefaultScript, the default), "fold" (a
// corner carried across onto the cloth, the two layers pinched, pressed
// flat and slid along the fold) and "crumple" (both pads push the cloth
// up from its bottom edge, piling it into folds, and press the pile): sim's FoldScript and
// CrumpleScript, the scenes its self-collision is tested and benched on.
var Handlings = []string{"showcase", "fold", "crumple"}

// HandlingScript returns the named handling for the scene sc and the
// cloth simCfg (with its defaults filled in, as Config.simConfig returns
// it: the sim scenes are laid out on its corner, size, pads and fabric
// thickness).
func HandlingScript(name string, sc twin.Scene, simCfg sim.Config) (*twin.Script, error) {
	switch name {
	case "", "showcase":
		return twin.DefaultScript(sc), nil
	case "fold":
		return fromSim(sim.FoldScript(simCfg), "fold")
	case "crumple":
		return fromSim(sim.CrumpleScript(simCfg), "crumple")
	}
	return nil, fmt.Errorf("rig: unknown handling %q (want %s)", name, strings.Join(Handlings, ", "))
}

// fromSim converts a sim.Script to the twin's: both move the pad centres
// through the same keyframes along minimum-jerk segments, so the paths
// are the same. The script is one phase, named for the scene.
func fromSim(s *sim.Script, phase string) (*twin.Script, error) {
	var fingers [sim.NumFingers][]twin.Keyframe
	for _, k := range s.Keys {
		for f := range sim.NumFingers {
			fingers[f] = append(fingers[f], twin.Keyframe{T: k.T, Pos: k.Pos[f]})
		}
	}
	return twin.NewScript(fingers[sim.Thumb], fingers[sim.IndexFinger], []twin.Phase{{Name: phase}})
}

// knownHandling reports whether name is one of Handlings (or empty).
func knownHandling(name string) bool { return name == "" || slices.Contains(Handlings, name) }
