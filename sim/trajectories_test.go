package sim

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	trajectories = flag.Int("sim.trajectories", 50, "number of randomised pinch-and-pull trajectories TestRandomTrajectories runs (1000 for the full set)")
	stiffnessOut = flag.String("sim.stiffness", "", "file TestRandomTrajectories writes the stiffest local model of each trajectory to (JSON)")
)

// AskedStiffness is what TestRandomTrajectories writes with -sim.stiffness:
// per trajectory, the largest stiffness (Frobenius norm of LocalModel.K,
// the measure the haptics servo limits) either finger's local model asked
// for in contact.
type AskedStiffness struct {
	Trajectories int       `json:"trajectories"`
	Side         int       `json:"side"`
	DtMs         float64   `json:"dt_ms"`
	MaxNpm       []float64 `json:"max_npm"` // per trajectory, in order [N/m]
	P50Npm       float64   `json:"p50_npm"`
	P99Npm       float64   `json:"p99_npm"`
	LargestNpm   float64   `json:"largest_npm"`
	// Commit is the commit the survey ran on (git rev-parse HEAD, with
	// "+modified" when the work tree differed from it), so that a reader
	// can tell a survey older than the cloth it describes.
	Commit string `json:"commit"`
}

// randomTrajectory is one randomised handling: both pads approach a random
// point of the cloth from either side and close on it, each pad surface
// going up to 5 mm past the fabric's surface (sometimes only the index
// presses), pull it by up to 6 cm in a random direction, hold, open and
// withdraw; each segment's peak speed is random up to 1 m/s.
func randomTrajectory(rng *rand.Rand, thickness float64) *Script {
	const pad = 0.008
	surf := pad + thickness/2
	at := [3]float64{-0.13 + 0.26*rng.Float64(), 0.02 + 0.26*rng.Float64(), 0}
	var pull [3]float64
	for {
		pull = [3]float64{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		if l := norm3(pull); l > 0.1 && l <= 1 {
			pull = scale3(0.06*rng.Float64()/l, pull)
			break
		}
	}
	squeeze := [NumFingers]float64{0.005 * rng.Float64(), 0.005 * rng.Float64()}
	if rng.IntN(5) == 0 {
		squeeze[Thumb] = -0.01 // the thumb stays off: a press, not a pinch
	}
	place := func(p [3]float64, gap [NumFingers]float64) [NumFingers][3]float64 {
		th, ix := p, p
		th[2] -= surf + gap[Thumb]
		ix[2] += surf + gap[IndexFinger]
		return [NumFingers][3]float64{th, ix}
	}
	speed := func() float64 { return 0.02 + 0.98*rng.Float64() }
	var keys []Keyframe
	tm := 0.0
	add := func(pos [NumFingers][3]float64, hold float64) {
		if len(keys) > 0 {
			var d float64
			for k := range NumFingers {
				d = math.Max(d, norm3(sub3(pos[k], keys[len(keys)-1].Pos[k])))
			}
			tm += math.Max(1.875*d/speed(), 0.01) // minimum-jerk peak = 1.875 × mean speed
		}
		keys = append(keys, Keyframe{T: sec(tm), Pos: pos})
		if hold > 0 {
			tm += hold
			keys = append(keys, Keyframe{T: sec(tm), Pos: pos})
		}
	}
	away := 0.01 + 0.03*rng.Float64()
	add(place(at, [NumFingers]float64{away, away}), 0)
	add(place(at, [NumFingers]float64{-squeeze[Thumb], -squeeze[IndexFinger]}), 0.05+0.1*rng.Float64())
	moved := add3(at, pull)
	add(place(moved, [NumFingers]float64{-squeeze[Thumb], -squeeze[IndexFinger]}), 0.05+0.2*rng.Float64())
	add(place(moved, [NumFingers]float64{0.01, 0.01}), 0)
	far := place(moved, [NumFingers]float64{0.03, 0.03})
	far[Thumb][2], far[IndexFinger][2] = math.Min(far[Thumb][2], -0.04), math.Max(far[IndexFinger][2], 0.04)
	add(far, 0.1)
	s, err := NewScript(keys)
	if err != nil {
		panic(err)
	}
	return s
}

// TestRandomTrajectories runs randomised pinch-and-pull trajectories
// (-sim.trajectories, default 50; the full set is 1000) on the showcase
// cloth at 24² and 5 ms (12² and 10 ms, with 5 mm probe spacing, under the
// race detector): every one must end
// without a non-finite value or a recovery, and with the largest principal
// strain of any triangle, at every step, under 50 %.
func TestRandomTrajectories(t *testing.T) {
	n := pick(24, 12)
	// The commit is read before the trajectories run, so that a commit
	// made while they run is not recorded as theirs.
	commit := ""
	if *stiffnessOut != "" {
		commit = surveyCommit()
	}
	var (
		mu                     sync.Mutex
		worst, sumIters, steps float64
		recoveries             uint64
		asked                  = make([]float64, *trajectories)
	)
	// The trajectories are independent: run them on every core (the group
	// returns when all its parallel subtests have).
	t.Run("group", func(t *testing.T) {
		for i := range *trajectories {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(uint64(i), 0x5eed))
				c := newTestCloth(t, func(cfg *Config) {
					cfg.NodesU, cfg.NodesV = n, n
					cfg.ProbeSpacing, cfg.Dt = pick(cfg.ProbeSpacing, 0.005), pick(cfg.Dt, 10*time.Millisecond)
				})
				s := randomTrajectory(rng, c.cfg.Material.Thickness)
				var maxStrain, iters, k, stiff float64
				runScript(c, s, s.Duration()+50*time.Millisecond, func(step int, tm time.Duration) {
					for f := range NumFingers {
						if lm := &c.out.Local[f]; lm.InContact {
							stiff = math.Max(stiff, frobenius33(&lm.K))
						}
					}
					st := c.Stats()
					maxStrain = math.Max(maxStrain, st.MaxStrain)
					iters += float64(st.CGIters)
					k++
				})
				maxStrain = math.Max(maxStrain, c.MaxStrain())
				rec := c.Stats().Recoveries
				if !allFinite(c.x) || !allFinite(c.v) || rec > 0 || !(maxStrain < 0.5) {
					t.Errorf("trajectory %d: finite %v, recoveries %d, max strain %.3f", i, allFinite(c.x) && allFinite(c.v), rec, maxStrain)
				}
				mu.Lock()
				asked[i] = stiff
				worst = math.Max(worst, maxStrain)
				recoveries += rec
				sumIters += iters
				steps += k
				mu.Unlock()
			})
		}
	})
	t.Logf("%d trajectories on %d² at 5 ms: largest strain %.3f, recoveries %d, mean CG iterations %.1f over %.0f steps",
		*trajectories, n, worst, recoveries, sumIters/steps, steps)
	sorted := slices.Sorted(slices.Values(asked))
	rep := AskedStiffness{Trajectories: *trajectories, Side: n, DtMs: pick(5.0, 10.0), MaxNpm: asked,
		P50Npm: quantile(sorted, 0.5), P99Npm: quantile(sorted, 0.99), LargestNpm: sorted[len(sorted)-1]}
	t.Logf("stiffest local model per trajectory: median %.0f N/m, 99th percentile %.0f N/m, largest %.0f N/m", rep.P50Npm, rep.P99Npm, rep.LargestNpm)
	if *stiffnessOut != "" {
		rep.Commit = commit
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*stiffnessOut, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// surveyCommit names the commit the tests run on, "+modified" appended
// when the work tree differs from it, or "unknown" outside a git work
// tree.
func surveyCommit() string {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "+modified"
	}
	return c
}

// quantile returns the q-quantile of sorted values (nearest rank).
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(len(sorted)-1, i))]
}

func frobenius33(k *[3][3]float64) float64 {
	var s float64
	for i := range 3 {
		for j := range 3 {
			s += k[i][j] * k[i][j]
		}
	}
	return math.Sqrt(s)
}
