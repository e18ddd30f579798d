package sim

import (
	"encoding/json"
	"strconv"

	"github.com/tickwork/tickwork/worker"
)

// output is what a modelled handler records (worker.RecordOutput): every
// success records one naming its execution, so that property 9 can tell
// whose output a completed row kept. It draws nothing from the seed.
func (ex *execution) output() json.RawMessage {
	if ex.decision != worker.Succeed {
		return nil
	}
	return json.RawMessage(`{"exec":` + strconv.FormatUint(ex.id, 10) + `}`)
}
