package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/tickwork/tickwork/worker"
)

// builtinQueues are the queues the binary has handlers for, each with a
// check of its payload that enqueue runs before storing a job.
var builtinQueues = map[string]func(json.RawMessage) error{
	"webhook": checkWebhookPayload,
	"noop":    func(json.RawMessage) error { return nil },
}

func builtinQueueNames() []string { return slices.Sorted(maps.Keys(builtinQueues)) }

func checkWebhookPayload(raw json.RawMessage) error {
	var p webhookPayload
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("not a webhook payload {\"url\": ..., \"body\": ..., \"headers\": {...}}: %v", err)
	}
	return p.validate()
}

// registerHandlers gives the worker the built-in handler of each queue
// (a second signal cuts them short through worker.Options.Abandon). The webhook handler waits as
// long as an answer's Retry-After asks before its retry, and with a
// positive webhookMaxAttempts bounds its jobs' attempts.
func registerHandlers(w *worker.Worker, cfg worker.Config, sender *webhookSender, webhookMaxAttempts int) error {
	for _, q := range cfg.Queues {
		var err error
		switch q {
		case "webhook":
			opts := []worker.HandlerOption{webhookRetryDelay(cfg.Backoff)}
			if webhookMaxAttempts > 0 {
				opts = append(opts, worker.WithQueueMaxAttempts(webhookMaxAttempts))
			}
			err = worker.Handle(w, q, func(ctx context.Context, job worker.Job[webhookPayload]) error {
				return webhookDecision(sender.send(ctx, job.Payload))
			}, opts...)
		case "noop":
			err = worker.Handle(w, q, func(context.Context, worker.Job[json.RawMessage]) error { return nil })
		default:
			err = fmt.Errorf("no built-in handler for queue %q", q)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// webhookDecision maps a delivery error to the job's fate: permanent
// errors fail the job, all others are retried.
func webhookDecision(err error) error {
	if isPermanent(err) {
		return worker.FailJob(err)
	}
	return worker.RetryJob(err)
}
