package names

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// PayloadKey derives a unique key from a job's queue and payload bytes:
// jobs with the same queue and the same payload text share it.
func PayloadKey(queue string, payload []byte) string {
	h := sha256.New()
	h.Write([]byte(queue))
	h.Write([]byte{0})
	h.Write(payload)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// StoredKey is the key a store writes for a job with unique key key,
// covering statuses (a StatusSet's String) and, with period > 0, the window
// of store time now falls in: two rows conflict only when all three agree.
// "" when key is "".
func StoredKey(key, statuses string, period time.Duration, now time.Time) string {
	if key == "" {
		return ""
	}
	stored := key + "|" + statuses
	if period > 0 {
		stored += "|" + now.UTC().Truncate(period).Format(time.RFC3339Nano) + "/" + period.String()
	}
	return stored
}
