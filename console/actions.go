package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// act runs one action on job id and returns the job to show next: the new
// attempt for a retry, the job itself for a cancel or a skip, the deleted
// row for a delete.
func (s *Server) act(ctx context.Context, action string, id ulid.ULID) (store.Job, error) {
	var job store.Job
	var err error
	switch action {
	case "retry":
		// An operator's retry, the CLI's: ErrConflict for a job that is
		// not failed or lost or was already retried.
		job, err = worker.NewClient(s.opts.Store, nil).Retry(ctx, id)
	case "cancel":
		err = s.opts.Store.InTx(ctx, func(tx store.Tx) error {
			job, err = tx.CancelJob(ctx, id)
			return err
		})
	case "skip":
		// Releases the sequence the job halts; ErrConflict when it halts
		// none.
		err = s.opts.Store.InTx(ctx, func(tx store.Tx) error {
			job, err = tx.SkipJob(ctx, id)
			return err
		})
	case "delete":
		// Deletes an ended job for good; ErrConflict, saying what to do
		// first, for one the store keeps (store.Tx.DeleteJob).
		err = s.opts.Store.InTx(ctx, func(tx store.Tx) error {
			job, err = tx.DeleteJob(ctx, id)
			return err
		})
	default:
		return job, &httpError{http.StatusNotFound, fmt.Errorf("unknown action %q: want retry, cancel, skip or delete", action)}
	}
	if err != nil {
		return job, fmt.Errorf("%s job %s: %w", action, id, err)
	}
	s.opts.Logger.Info("console action", "action", action, "job", id, "result", job.ID)
	return job, nil
}

// actQueue pauses or resumes queue, or every queue at once (pause-all,
// resume-all: queue is not read). All are idempotent in the store, so a
// second click changes nothing and is not an error.
func (s *Server) actQueue(ctx context.Context, action, queue string) error {
	var edit func(tx store.Tx) error
	switch action {
	case "pause":
		edit = func(tx store.Tx) error { return tx.PauseQueue(ctx, queue) }
	case "resume":
		edit = func(tx store.Tx) error { return tx.ResumeQueue(ctx, queue) }
	case "pause-all":
		edit = func(tx store.Tx) error { return tx.PauseAll(ctx) }
	case "resume-all":
		edit = func(tx store.Tx) error { return tx.ResumeAll(ctx) }
	default:
		return &httpError{http.StatusNotFound, fmt.Errorf("unknown queue action %q: want pause, resume, pause-all or resume-all", action)}
	}
	what := action + " queue " + names.Quote(queue)
	if allAction(action) {
		what, queue = action, ""
	}
	if err := s.opts.Store.InTx(ctx, edit); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	s.opts.Logger.Info("console action", "action", action, "queue", queue)
	return nil
}

// allAction reports whether a queue action is of every queue at once.
func allAction(action string) bool { return action == "pause-all" || action == "resume-all" }

// PausedAll is the answer of POST /api/queues/{pause-all,resume-all}.
type PausedAll struct {
	PausedAllAt *time.Time `json:"paused_all_at"` // null: not paused all
}

// formQueueAction serves the pause and resume buttons of the overview; the
// queue's name travels in the form, so that any name fits.
func (s *Server) formQueueAction(w http.ResponseWriter, r *http.Request) {
	if err := s.checkForm(r); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.actQueue(r.Context(), r.PathValue("action"), r.PostFormValue("queue")); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// apiQueueAction serves POST /api/queues/{pause,resume} (form field queue)
// for programs holding the token; it answers with the queue's line of the
// overview (for pause-all and resume-all, with PausedAll).
func (s *Server) apiQueueAction(w http.ResponseWriter, r *http.Request) {
	if err := s.checkBearer(r); err != nil {
		s.failJSON(w, r, err)
		return
	}
	queue := r.PostFormValue("queue")
	if err := s.actQueue(r.Context(), r.PathValue("action"), queue); err != nil {
		s.failJSON(w, r, err)
		return
	}
	o, err := s.overview(r.Context())
	if err != nil {
		s.failJSON(w, r, err)
		return
	}
	if allAction(r.PathValue("action")) {
		writeJSON(w, http.StatusOK, PausedAll{PausedAllAt: o.PausedAllAt})
		return
	}
	for _, q := range o.Queues {
		if q.Queue == queue {
			writeJSON(w, http.StatusOK, q)
			return
		}
	}
	writeJSON(w, http.StatusOK, QueueStats{Queue: queue})
}

// checkBearer authorizes an API action: a console with a token, and the
// token in the Authorization header.
func (s *Server) checkBearer(r *http.Request) error {
	if s.readOnly() {
		return errReadOnly
	}
	if !s.bearer(r) {
		return &httpError{http.StatusUnauthorized, fmt.Errorf("send the admin token as Authorization: Bearer TOKEN")}
	}
	return nil
}

// formAction serves the buttons of the job page. A delete must carry the
// form's confirmation (confirm=yes): the job goes for good.
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
	action := r.PathValue("action")
	if action == "delete" && r.PostFormValue("confirm") != "yes" {
		s.fail(w, r, &httpError{http.StatusBadRequest, fmt.Errorf("delete job %s: tick the box to confirm that it goes for good", id)})
		return
	}
	job, err := s.act(r.Context(), action, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if action == "delete" {
		http.Redirect(w, r, "/jobs?queue="+url.QueryEscape(job.Queue), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/jobs/"+job.ID.String(), http.StatusSeeOther)
}

// apiAction serves POST /api/jobs/{id}/{retry,cancel,skip,delete} for
// programs holding the token.
func (s *Server) apiAction(w http.ResponseWriter, r *http.Request) {
	if err := s.checkBearer(r); err != nil {
		s.failJSON(w, r, err)
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
	writeJSON(w, http.StatusOK, attemptOf(job, maxShownJSON))
}
