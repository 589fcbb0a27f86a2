package gitx

import "syscall"

const mapPopulate = syscall.MAP_POPULATE
