//go:build unix && !linux

package fsx

const mapPopulate = 0
