package psych

import (
	"fmt"
)

// TaskKind is the kind of psychophysical task.
type TaskKind int

const (
	// AFC is m-alternative forced choice (2AFC by default): the response is
	// Correct or Incorrect and the guess rate is 1/m.
	AFC TaskKind = iota
	// YesNo is a detection or same/different judgement: the response is
	// Yes or No; the guess rate is the false-alarm rate, a free or
	// fixed parameter.
	YesNo
	// Rating is a judgement on a scale 1..Levels. Adaptive procedures and
	// fits see it as binary: positive when the rating is at least
	// Criterion.
	Rating
)

var taskNames = [...]string{AFC: "afc", YesNo: "yesno", Rating: "rating"}

func (k TaskKind) String() string {
	if k < 0 || int(k) >= len(taskNames) {
		return fmt.Sprintf("TaskKind(%d)", int(k))
	}
	return taskNames[k]
}

// MarshalText implements encoding.TextMarshaler.
func (k TaskKind) MarshalText() ([]byte, error) {
	if k < 0 || int(k) >= len(taskNames) {
		return nil, fmt.Errorf("psych: unknown task kind %d", int(k))
	}
	return []byte(taskNames[k]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler. "2afc" is accepted for
// "afc".
func (k *TaskKind) UnmarshalText(b []byte) error {
	if string(b) == "2afc" {
		*k = AFC
		return nil
	}
	for i, n := range taskNames {
		if string(b) == n {
			*k = TaskKind(i)
			return nil
		}
	}
	return fmt.Errorf("psych: unknown task %q (want afc, yesno or rating)", b)
}

// Response is one answer. For AFC it is Correct (1) or Incorrect (0); for
// YesNo it is Yes (1) or No (0); for Rating it is the rating 1..Levels.
type Response int

const (
	Incorrect Response = 0
	Correct   Response = 1
	No        Response = 0
	Yes       Response = 1
)

// Task says what a response means. The zero value is 2AFC.
type Task struct {
	Kind TaskKind `json:"kind" toml:"kind"`
	// Alternatives is m for m-AFC; 0 means 2.
	Alternatives int `json:"alternatives,omitempty" toml:"alternatives"`
	// Levels is the number of rating categories (Rating only, >= 2).
	Levels int `json:"levels,omitempty" toml:"levels"`
	// Criterion is the lowest rating counted as positive (Rating only,
	// 2..Levels).
	Criterion int `json:"criterion,omitempty" toml:"criterion"`
}

// TwoAFC is the two-alternative forced-choice task.
var TwoAFC = Task{Kind: AFC, Alternatives: 2}

// Validate reports whether the task is well formed.
func (t Task) Validate() error {
	switch t.Kind {
	case AFC:
		if t.Alternatives != 0 && t.Alternatives < 2 {
			return fmt.Errorf("psych: %d-AFC task needs at least 2 alternatives", t.Alternatives)
		}
	case YesNo:
	case Rating:
		if t.Levels < 2 {
			return fmt.Errorf("psych: rating task needs at least 2 levels, have %d", t.Levels)
		}
		if t.Criterion < 2 || t.Criterion > t.Levels {
			return fmt.Errorf("psych: rating criterion %d outside 2..%d", t.Criterion, t.Levels)
		}
	default:
		return fmt.Errorf("psych: unknown task kind %d", int(t.Kind))
	}
	return nil
}

// Guess is the guess rate fixed by the task: 1/m for m-AFC, and NaN for
// yes/no and rating tasks, whose guess (false-alarm) rate is an observer
// property.
func (t Task) Guess() float64 {
	if t.Kind != AFC {
		return nan
	}
	m := t.Alternatives
	if m == 0 {
		m = 2
	}
	return 1 / float64(m)
}

// Positive interprets a response: correct, yes, or a rating at or above
// the criterion.
func (t Task) Positive(r Response) (bool, error) {
	switch t.Kind {
	case AFC, YesNo:
		if r != 0 && r != 1 {
			return false, fmt.Errorf("psych: %s response %d is neither 0 nor 1", t.Kind, r)
		}
		return r == 1, nil
	case Rating:
		if r < 1 || int(r) > t.Levels {
			return false, fmt.Errorf("psych: rating %d outside 1..%d", r, t.Levels)
		}
		return int(r) >= t.Criterion, nil
	}
	return false, fmt.Errorf("psych: unknown task kind %d", int(t.Kind))
}

// gammaFor resolves the guess rate a model-based procedure assumes: the
// task's for AFC, the configured one otherwise.
func (t Task) gammaFor(configured float64) (float64, error) {
	if g := t.Guess(); finite(g) {
		if configured != 0 && configured != g {
			return 0, fmt.Errorf("psych: guess rate %g contradicts the %d-AFC task (1/m = %g)", configured, int(1/g+0.5), g)
		}
		return g, nil
	}
	if configured < 0 || configured >= 1 || !finite(configured) {
		return 0, fmt.Errorf("psych: guess rate %g outside [0, 1)", configured)
	}
	return configured, nil
}
