// Package psych owns psychophysical procedures, psychometric-function
// fitting, simulated observers, the per-user tactile threshold
// calibration and the analysis of evaluation experiments: everything
// between "present this stimulus" and "the threshold is 2.3 ± 0.3" or
// "the virtual fabrics transmit 1.2 bits". It never touches a device, a window or the wall
// clock, and reads or writes only what its caller hands it (an io.Reader,
// an io.Writer, a plot path); the experiment runner delivers stimuli,
// collects responses and stores the states.
//
// # Procedures
//
// A Procedure (Staircase, Quest, Psi, Constant, Interleaved) hands out one
// Trial at a time with Next and learns the Response with Update. Next
// keeps returning the same pending trial until Update consumes it.
// State returns the complete state as JSON and Restore rebuilds a
// procedure that continues bit-identically, so an interrupted run resumes
// exactly where it stopped. Procedures are deterministic given their
// configuration and seed.
//
//   - Staircase: transformed up/down (Levitt 1971) with unequal up and
//     down steps (Kaernbach 1991), step sizes that change at reversals,
//     stopping on trials or reversals.
//   - Quest: Watson & Pelli (1983) with a Gaussian prior, placing trials
//     at the sweet point by default.
//   - Psi: Kontsevich & Tyler (1999), joint threshold and slope; with
//     Objective "threshold" the slope is a nuisance parameter (Prins 2013),
//     with "variance" trials minimise the threshold's expected posterior
//     variance. The estimate is the median of the threshold's marginal
//     posterior; a log-normal slope prior is optional.
//   - Constant: the method of constant stimuli in randomised blocks.
//   - Interleaved: any procedures in random, blocked or sequential turns.
//
// Tasks are m-AFC (response Correct/Incorrect), yes/no (Yes/No) and rating
// (1..Levels, counted positive from a criterion up).
//
// # Psychometric functions: what threshold and slope mean
//
// Every function is ψ(x) = γ + (1 − γ − λ)·F(x; α, β), γ the guess rate
// (1/m for m-AFC, the false-alarm rate for yes/no), λ the lapse rate:
//
//	Logistic   F = 1 / (1 + exp(−β(x − α)))   α at F = 0.5; dF/dx there β/4
//	CumNormal  F = Φ(β(x − α))                 α at F = 0.5; σ = 1/β; dF/dx there β/√(2π)
//	Weibull    F = 1 − exp(−(x/α)^β), x > 0    α at F = 1 − 1/e ≈ 0.632
//
// α and β are the shape parameters exactly as Palamedes defines them for
// these three forms. They do not mean the same across forms, so haptex
// never calls α "the threshold". A fit, QUEST, Psi and the constant-stimuli
// estimate report:
//
//   - Threshold: the x at which F = Criterion (default 0.5), that is, the
//     point halfway from γ to 1 − λ. With λ = 0 that is 75% correct in
//     2AFC and 50% "yes" in yes/no with γ = 0. It equals α for the logistic
//     and cumulative normal, and α·(ln 2)^(1/β) for the Weibull.
//   - Slope: dψ/dx at the threshold, in probability per stimulus unit,
//     comparable across forms (it includes the 1 − γ − λ factor).
//
// The Weibull is the known trap. Palamedes' Weibull "threshold" is α, at
// F = 0.632: 81.6% correct in 2AFC. psignifit 4 reports the F = 0.5 point,
// and its width, not β. QUEST (Watson & Pelli) defines threshold at a
// chosen ψ, 82% in their example. To compare with Palamedes, read
// Fit.PF.Alpha. To compare with psignifit, read Fit.Threshold. Staircases
// converge on a fixed probability of a positive response (Estimate.TargetP:
// 70.7% for 1-up/2-down) instead of on a criterion of F, so their
// threshold is pf.Inverse(TargetP). Estimate.Truth gives the right
// comparison for every procedure.
//
// # Fits and uncertainty
//
// FitPosterior is the fit experiments report: a Bayesian posterior after
// psignifit 4 (threshold, width, lapse, guess rate and beta-binomial
// overdispersion on a grid), summarised by marginal medians and central
// credible intervals, at the criterion and at target probabilities, with
// warnings of what the data leave to the prior. Its priors are psignifit's
// with three documented changes (see Posterior) that give 95 % intervals
// holding the true threshold 96.5-98 % of the time on a staircase, QUEST
// and constant stimuli (TestIntervalCoverage, -psych.coverage=200).
//
// FitPF maximises the binomial likelihood with gonum/optimize (BFGS on
// the analytic gradient) inside bounds that no step can cross. γ and λ can
// be fixed or free. It names parameters that end on a bound and warns when
// the threshold lies outside the tested stimuli or the data are a step.
// Fit.Bootstrap gives parametric-bootstrap intervals for threshold, slope,
// α and β. The intervals are bias-corrected percentile intervals; each
// always contains its point estimate and says so when it had to be widened
// to do so. Bootstrap also gives the Monte Carlo p-value of the deviance.
//
// # Simulated observers
//
// An Observer answers from the nominal stimulus with a known psychometric
// function: it validates procedures and fits against the truth. A
// CueObserver answers from the cues a rig delivered in each interval, with
// log-normal noise scaled to a Weber fraction: it predicts what a person
// could discriminate given what reached the finger.
//
// # Analysis of evaluation experiments
//
// The protocols that compare virtual with real fabrics are analysed
// here; docs/analysis.md states each method with its measured coverage.
//
//   - Matching and identification: Confusion counts stimuli × responses;
//     Analyse gives row probabilities with Wilson intervals, percent
//     correct, and the information transmitted (Miller & Nicely 1955)
//     with the Miller–Madow correction and a smoothed parametric-
//     bootstrap interval (checked in the tests against an observer with
//     set confusions).
//   - Joint fits: FitJoint fits one psychometric function per condition
//     with α, β, γ and λ each separate, shared or fixed across conditions;
//     CompareModelsWith tests nested models by
//     likelihood ratio (χ² and Monte Carlo p-values) and AIC, as
//     Palamedes does.
//   - Magnitude estimation: FitPowerLaw fits Stevens' exponent per subject
//     with a t interval; MagnitudeObserver follows a known power law.
//   - Semantic differential: AnalyseSemantic gives each fabric's profile
//     and, per scale, the real-versus-virtual correlation across fabrics,
//     disattenuated for the subjects' scatter, with intervals from a
//     bootstrap over subjects.
//   - Summarise gives the mean, SD, SEM and t interval of a per-subject
//     quantity.
//
// # Stimulus grids
//
// A staircase keeps its level as an index on a grid (its start plus whole
// multiples of a quantum that divides every step), QUEST places trials on
// its posterior's grid, and Psi and constant stimuli draw from their own
// lists: a level presented twice is the same float64, so Tally counts it
// as one point.
//
// # Known behaviour, measured with simulated observers (see the tests)
//
// Transformed staircases converge on their nominal target only when the
// steps are small against the spread of the psychometric function
// (García-Pérez 1998). In 2AFC a 1-up/1-down fast start plunges below
// threshold on lucky guesses, so it is off by default, and the forced-
// choice presets use none. QUEST assumes a known slope. If the assumption
// is wrong the threshold is biased; Psi estimates the slope instead and
// pays with trials. PF.ThresholdSDBound gives the Cramér–Rao limit that no
// procedure beats, which tells how many trials a target precision needs;
// PF.ThresholdSDBoundFreeSlope gives it for a procedure that must learn
// the slope too. In forced choice the two differ: the most informative
// stimulus lies above the threshold, where ψ also depends on β, so a
// procedure that does not know β is best off at the threshold itself.
//
// On the steep 2AFC study observer (Weibull, β = 3.5, 1,000 observers,
// testdata/study-1000.json) QUEST, told the slope, reaches 8.6% ± 0.3
// threshold RMSE at 60 trials, against a bound of 7.3%. Psi with a slope
// prior flat over [1, 8] reaches 9.7% ± 0.2 (variance objective), 9.9%
// (threshold entropy) and 11.5% (joint entropy), against a bound of 9.5%
// for any procedure that does not know the slope: 10% at 60 trials is
// within its reach but not by a margin that a 1,000-observer study can
// confirm (2,000 observers gave 9.9% ± 0.2). Told what QUEST is told, as
// a log-normal slope prior of SD 0.35 in ln β around the true β, Psi
// reaches 9.0% ± 0.2; around β = 3 (15% off) 8.8%. A slope prior is an
// assumption like QUEST's: around β = 3 it biases the threshold of the
// shallow (β = 1.5) observer by +16% after 100 trials.
//
// # Conventions
//
// Stimuli are in physical units (µm for tactile amplitudes, m⁻¹ for
// curvature). A procedure's Scale (linear, log10, dB) is only where it
// steps and spaces its grids. Errors are prefixed "psych:". Procedures are
// not safe for concurrent use; Fit.Bootstrap runs in parallel with
// results independent of the number of workers.
//
// # References
//
//   - Levitt H. Transformed up-down methods in psychoacoustics. J Acoust
//     Soc Am 49:467–477, 1971.
//   - Kaernbach C. Simple adaptive testing with the weighted up-down
//     method. Percept Psychophys 49(3):227–229, 1991.
//   - Watson AB, Pelli DG. QUEST: a Bayesian adaptive psychometric method.
//     Percept Psychophys 33(2):113–120, 1983.
//   - King-Smith PE, Grigsby SS, Vingrys AJ, Benes SC, Supowit A. Efficient
//     and unbiased modifications of the QUEST threshold method. Vision Res
//     34(7):885–912, 1994.
//   - Kontsevich LL, Tyler CW. Bayesian adaptive estimation of
//     psychometric slope and threshold. Vision Res 39(16):2729–2737, 1999.
//   - Prins N. The psi-marginal adaptive method. J Vis 13(7):3, 2013.
//   - García-Pérez MA. Forced-choice staircases with fixed step sizes:
//     asymptotic and small-sample properties. Vision Res 38(12):1861–1881,
//     1998.
//   - Wichmann FA, Hill NJ. The psychometric function: I. Fitting,
//     sampling, and goodness of fit; II. Bootstrap-based confidence
//     intervals and sampling. Percept Psychophys 63(8):1293–1313,
//     1314–1329, 2001.
//   - Efron B. Better bootstrap confidence intervals. J Am Stat Assoc
//     82(397):171–185, 1987.
//   - Schütt HH, Harmeling S, Macke JH, Wichmann FA. Painfree and accurate
//     Bayesian estimation of psychometric functions for (potentially)
//     overdispersed data. Vision Res 122:105–123, 2016.
//   - Miller GA, Nicely PE. An analysis of perceptual confusions among
//     some English consonants. J Acoust Soc Am 27(2):338–352, 1955.
//   - Miller GA. Note on the bias of information estimates. In Quastler H
//     (ed.), Information theory in psychology, 95–100. Free Press, 1955.
//   - Brown LD, Cai TT, DasGupta A. Interval estimation for a binomial
//     proportion. Stat Sci 16(2):101–133, 2001.
//   - Stevens SS. On the psychophysical law. Psychol Rev 64(3):153–181,
//     1957.
//   - Spearman C. The proof and measurement of association between two
//     things. Am J Psychol 15(1):72–101, 1904.
//   - Prins N, Kingdom FAA. Applying the model-comparison approach to test
//     specific research hypotheses in psychophysical research using the
//     Palamedes toolbox. Front Psychol 9:1250, 2018.
package psych
