package psych_test

import (
	"fmt"
	"log"

	"github.com/BurntSushi/toml"

	"github.com/haptex/haptex/calib/psych"
)

// The experiment runner's loop: ask for a trial, deliver it, record the
// response, save the state with the trial's data row, and after a crash
// resume from the last saved state.
func Example() {
	cfg := psych.Config{Kind: psych.KindStaircase, Staircase: &psych.StaircaseConfig{
		Task: psych.TwoAFC, Scale: psych.DB, Start: 30, Min: 0.5, Max: 100,
		Up: 1, Down: 3, Steps: []float64{4, 2, 1}, MaxTrials: 80, MaxReversals: 12, Discard: 4,
	}}
	p, err := psych.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	subject, err := psych.ParseObserver("sim:form=weibull,threshold=10,beta=3.5,lambda=0.01,seed=3", psych.TwoAFC)
	if err != nil {
		log.Fatal(err)
	}
	var saved []byte
	for !p.Done() {
		t, err := p.Next()
		if err != nil {
			log.Fatal(err)
		}
		if err := p.Update(t, subject.Respond(t.X)); err != nil {
			log.Fatal(err)
		}
		if saved, err = p.State(); err != nil { // store with the trial's row, then fsync
			log.Fatal(err)
		}
		if t.Index == 20 {
			// Simulate a crash and a resume from the saved state.
			if p, err = psych.Restore(saved); err != nil {
				log.Fatal(err)
			}
		}
	}
	e := p.Estimate()
	fmt.Printf("%d trials, %d reversals: threshold %.2f µm at %.1f%% correct (±%.1f dB)\n",
		e.Trials, e.Reversals, e.Threshold, 100*e.TargetP, e.SD)
	truth, _ := e.Truth(subject.PF)
	fmt.Printf("the simulated subject's true value: %.2f µm\n", truth)
	// Output:
	// 63 trials, 12 reversals: threshold 11.77 µm at 79.4% correct (±1.2 dB)
	// the simulated subject's true value: 10.82 µm
}

// A procedure as it appears in an experiment file (TOML).
func ExampleConfig_toml() {
	const file = `
kind = "quest"
[quest]
task = { kind = "afc", alternatives = 2 }
form = "weibull"
beta = 3.5
lambda = 0.01
scale = "db"
min = 0.5
max = 100
prior_threshold = 20
prior_sd = 10
max_trials = 60
`
	var c psych.Config
	if _, err := toml.Decode(file, &c); err != nil {
		log.Fatal(err)
	}
	p, err := psych.New(c)
	if err != nil {
		log.Fatal(err)
	}
	t, _ := p.Next()
	fmt.Printf("%s: first trial at %.2f\n", p.Kind(), t.X)
	// Output:
	// quest: first trial at 21.51
}
