module dralint.dev/conformance/chartversions

go 1.24

require github.com/Masterminds/semver/v3 v3.5.0
