package main

import (
	"context"
	"errors"
	"io"
)

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("history: not yet")
}
