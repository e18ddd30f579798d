package mem_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func open(_ *testing.T, now func() time.Time) store.Store { return mem.New(now) }

func TestConformance(t *testing.T) { storetest.Run(t, open) }
