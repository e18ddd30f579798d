package pgtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ory/dockertest/v3"
	"github.com/ory/dockertest/v3/docker"
)

// The container this process started, if any.
var container struct {
	mu   sync.Mutex
	pool *dockertest.Pool
	res  *dockertest.Resource
}

// startContainer runs PostgreSQL in Docker and waits until it accepts
// connections. The container is removed by Main (purge); AutoRemove also
// removes it if it stops on its own.
func startContainer() (string, error) {
	pool, err := dockertest.NewPool("")
	if err != nil {
		return "", fmt.Errorf("docker: %w", err)
	}
	if err := pool.Client.Ping(); err != nil {
		return "", fmt.Errorf("docker is not reachable: %w", err)
	}
	res, err := pool.RunWithOptions(&dockertest.RunOptions{
		Repository: "postgres",
		Tag:        "16-alpine",
		Env:        []string{"POSTGRES_HOST_AUTH_METHOD=trust", "POSTGRES_DB=test"},
		Labels:     map[string]string{"tickwork": "pgtest"},
	}, func(hc *docker.HostConfig) {
		hc.AutoRemove = true
		hc.RestartPolicy = docker.RestartPolicy{Name: "no"}
	})
	if err != nil {
		return "", fmt.Errorf("docker: start postgres: %w", err)
	}
	container.mu.Lock()
	container.pool, container.res = pool, res
	container.mu.Unlock()

	url := "postgres://postgres@" + res.GetHostPort("5432/tcp") + "/test?sslmode=disable&connect_timeout=5"
	pool.MaxWait = 2 * time.Minute
	err = pool.Retry(func() error {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "SELECT 1")
		return err
	})
	if err != nil {
		return "", errors.Join(fmt.Errorf("docker: postgres did not accept connections: %w", err), purge())
	}
	return url, nil
}

// purge removes the container this process started, if any.
func purge() error {
	container.mu.Lock()
	defer container.mu.Unlock()
	if container.res == nil {
		return nil
	}
	err := container.pool.Purge(container.res)
	container.pool.Client.HTTPClient.CloseIdleConnections() // their goroutines would look leaked
	container.pool, container.res = nil, nil
	return err
}
