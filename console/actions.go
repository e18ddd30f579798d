package console

import (
	"context"
	"fmt"
	"net/http"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// act runs one action on job id and returns the job to show next: the new
// attempt for a retry, the job itself for a cancel.
func (s *Server) act(ctx context.Context, action string, id ulid.ULID) (store.Job, error) {
	var job store.Job
	var err error
	switch action {
	case "retry":
		// An operator's retry: a new attempt available at once, whatever
		// the retry count. The store refuses (ErrConflict) a job that is
		// not failed or lost or was already retried.
		rnd := clockrng.NewRandFromOS()
		err = s.opts.Store.InTx(ctx, func(tx store.Tx) error {
			now, err := tx.Now(ctx)
			if err != nil {
				return err
			}
			job, err = tx.ScheduleRetry(ctx, id, clockrng.NewULID(now, rnd), 0)
			return err
		})
	case "cancel":
		err = s.opts.Store.InTx(ctx, func(tx store.Tx) error {
			job, err = tx.CancelJob(ctx, id)
			return err
		})
	// Pausing and resuming a queue join here once queues can be paused.
	default:
		return job, &httpError{http.StatusNotFound, fmt.Errorf("unknown action %q: want retry or cancel", action)}
	}
	if err != nil {
		return job, fmt.Errorf("%s job %s: %w", action, id, err)
	}
	s.opts.Logger.Info("console action", "action", action, "job", id, "result", job.ID)
	return job, nil
}

// formAction serves the buttons of the job page.
func (s *Server) formAction(w http.ResponseWriter, r *http.Request) {
	if err := s.checkForm(r); err != nil {
		s.fail(w, r, err)
		return
	}
	id, err := pathID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	job, err := s.act(r.Context(), r.PathValue("action"), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/jobs/"+job.ID.String(), http.StatusSeeOther)
}

// apiAction serves POST /api/jobs/{id}/{retry,cancel} for programs holding
// the token.
func (s *Server) apiAction(w http.ResponseWriter, r *http.Request) {
	if s.readOnly() {
		s.failJSON(w, r, errReadOnly)
		return
	}
	if !s.bearer(r) {
		s.failJSON(w, r, &httpError{http.StatusUnauthorized, fmt.Errorf("send the admin token as Authorization: Bearer TOKEN")})
		return
	}
	id, err := pathID(r)
	if err != nil {
		s.failJSON(w, r, err)
		return
	}
	job, err := s.act(r.Context(), r.PathValue("action"), id)
	if err != nil {
		s.failJSON(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, attemptOf(job))
}
