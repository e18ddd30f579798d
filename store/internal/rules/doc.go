// Package rules holds what every store does alike: the validation that
// refuses bad input before anything is written, the edits of a queues
// row, rate slots, and how a time or a failure reason is kept. store/mem
// and store/pg call the same code so that they decide the same; the
// package is internal so that go doc ./store shows the contract a user or
// a store implements, not the helpers of the stores in this repository.
package rules
