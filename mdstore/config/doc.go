// Package config reads .agent/config.yaml: how lore commits (auto, stage,
// none) and how long it waits for a lock, how memories reach an
// iteration, prime's section budgets (each named with its unit: tokens or
// characters), the models an orchestrator runs (and which configured
// model a full model id is), the learnings' summary threshold and
// auto-promotion, and prune's ages. A missing or empty file is the
// defaults; a value lore cannot use is a FileError naming the file, line
// and key, and an unknown key a warning. Validate judges the file as lore
// validate reports it.
package config
