// Package psych owns psychophysical procedures and psychometric fitting.
package psych
