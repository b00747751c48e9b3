package pull

// BundledPlatform is bundledPlatform, for the tests.
var BundledPlatform = bundledPlatform
