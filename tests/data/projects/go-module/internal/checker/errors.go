package checker

import (
	"errors"
	"fmt"
)

// ErrTimeout is returned when a link does not answer in time.
var ErrTimeout = errors.New("timed out")

// StatusError is a link that answered with a 4xx or 5xx status.
type StatusError struct {
	URL    string
	Status int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: status %d", e.URL, e.Status)
}
