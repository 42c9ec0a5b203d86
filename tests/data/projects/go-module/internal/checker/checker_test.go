package checker

import (
	"errors"
	"testing"
)

func TestStatusErrorMessage(t *testing.T) {
	err := &StatusError{URL: "https://a.example", Status: 404}
	if err.Error() != "https://a.example: status 404" {
		t.Errorf("error = %q", err.Error())
	}
}

func TestTimeoutIsAnError(t *testing.T) {
	if !errors.Is(ErrTimeout, ErrTimeout) {
		t.Error("timeout error")
	}
}
