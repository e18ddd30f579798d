package console

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// BulkPage is what the bulk page shows: the request, and its dry run's
// count before the operator confirms, or what the action did after.
type BulkPage struct {
	Action    worker.BulkAction
	Filter    worker.BulkFilter
	OlderThan string // as typed, for the confirmation form
	Confirmed bool   // the action ran; false: a dry run awaiting confirmation
	Result    worker.BulkResult
}

// parseBulk reads a bulk request from r's form: action, queue, status,
// older_than (a Go duration such as 1h30m), text, all=yes and, for the
// API, batch_size. An error names the field.
func parseBulk(hr *http.Request) (worker.BulkRequest, error) {
	if err := hr.ParseForm(); err != nil {
		return worker.BulkRequest{}, badRequest(fmt.Errorf("bulk: read the form: %w", err))
	}
	form := hr.PostForm
	r := worker.BulkRequest{Action: worker.BulkAction(form.Get("action")), Filter: worker.BulkFilter{
		Queue: form.Get("queue"), Status: store.Status(form.Get("status")), Text: form.Get("text"), All: form.Get("all") == "yes"}}
	if v := form.Get("older_than"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return r, badRequest(fmt.Errorf("older_than %q is not a duration such as 1h30m", v))
		}
		r.Filter.OlderThan = d
	}
	if v := form.Get("batch_size"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return r, badRequest(fmt.Errorf("batch_size %q is not a number", v))
		}
		r.BatchSize = n
	}
	return r, nil
}

// bulk runs r: a dry run unless confirmed, so that nothing changes
// before the operator saw the count and said yes.
func (s *Server) bulk(ctx context.Context, r worker.BulkRequest, confirmed bool) (worker.BulkResult, error) {
	r.DryRun = !confirmed
	res, err := worker.NewClient(s.opts.Store, nil).Bulk(ctx, r)
	if err != nil {
		return res, err
	}
	if confirmed {
		s.opts.Logger.Info("console bulk action", "action", r.Action, "queue", r.Filter.Queue, "status", r.Filter.Status,
			"older_than", r.Filter.OlderThan, "by_text", r.Filter.Text != "", "all", r.Filter.All,
			"matched", res.Matched, "done", res.Done, "refused", res.Refused)
	}
	return res, nil
}

// formBulk serves the jobs page's bulk form, for a logged-in operator:
// without confirm=yes it only counts and shows the confirmation form;
// with it, it acts and shows the counts.
func (s *Server) formBulk(w http.ResponseWriter, r *http.Request) {
	if err := s.checkForm(r); err != nil {
		s.fail(w, r, err)
		return
	}
	req, err := parseBulk(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	confirmed := r.PostFormValue("confirm") == "yes"
	res, err := s.bulk(r.Context(), req, confirmed)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "bulk", BulkPage{Action: req.Action, Filter: req.Filter, OlderThan: r.PostFormValue("older_than"), Confirmed: confirmed, Result: res})
}

// apiBulk serves POST /api/jobs/bulk for programs holding the token,
// with the form's fields: dry_run=yes counts; acting needs confirm=yes,
// as the form's second step does. It answers with worker.BulkResult.
func (s *Server) apiBulk(w http.ResponseWriter, r *http.Request) {
	if err := s.checkBearer(r); err != nil {
		s.failJSON(w, r, err)
		return
	}
	req, err := parseBulk(r)
	if err == nil && r.PostFormValue("dry_run") != "yes" && r.PostFormValue("confirm") != "yes" {
		err = badRequest(fmt.Errorf("bulk %s: send dry_run=yes to count, or confirm=yes to act", req.Action))
	}
	if err != nil {
		s.failJSON(w, r, err)
		return
	}
	res, err := s.bulk(r.Context(), req, r.PostFormValue("confirm") == "yes" && r.PostFormValue("dry_run") != "yes")
	if err != nil {
		s.failJSON(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
