package pull

import "time"

// BundledPlatform is bundledPlatform, for the tests.
var BundledPlatform = bundledPlatform

// SetProgressEvery sets how long the engine runs without a point before
// it hands a Running, until the returned function restores it.
func SetProgressEvery(d time.Duration) (restore func()) {
	old := progressEvery
	progressEvery = d
	return func() { progressEvery = old }
}
