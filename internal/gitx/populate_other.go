//go:build unix && !linux

package gitx

const mapPopulate = 0
