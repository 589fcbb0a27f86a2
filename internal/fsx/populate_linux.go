package fsx

import "syscall"

const mapPopulate = syscall.MAP_POPULATE
