package main

// The vocabularies of the realistic filler (distractors.go): the services
// of a made-up company beside tally, and for each area of software work
// the clauses its notes are made of. A {slot} in a string is filled when
// an entry is written (fillerProse.fill). They share tally's common and
// topical words (Postgres, Redis, timeout, worker, migration, CI, Docker,
// flaky, webhook, customer, invoice) and none of its distinctive
// identifiers, error strings or facts: what an entry says is about
// another service, and the guard (fillerGuard) checks every entry.

var fillerServices = []string{
	"ledger", "payouts", "notifier", "catalog", "inventory", "gateway", "scheduler",
	"exporter", "onboarding", "shipping", "pricing", "identity", "audit", "search-indexer",
	"storefront", "backoffice", "partner-api", "metering", "mailer", "data-sync",
	"checkout", "quotes", "loyalty", "warehouse", "fx-rates",
}

var fillerPeople = []string{"Jonas", "Priya", "Tomasz", "Aiko", "Lena", "Omar", "Ines", "Felix", "Ruth", "Dmitri", "Sade", "Kenji", "Bea", "Marco"}

var fillerTeams = []string{"the payments team", "the platform team", "the growth team", "the data team", "SRE", "the front-end guild", "the fulfilment team", "the merchant team"}

// fillerNouns are the business objects of the other services: the word,
// its plural, its table and its Go name.
var fillerNouns = [][4]string{
	{"order", "orders", "orders", "Order"},
	{"payout", "payouts", "payouts", "Payout"},
	{"shipment", "shipments", "shipments", "Shipment"},
	{"refund", "refunds", "refunds", "Refund"},
	{"transfer", "transfers", "transfers", "Transfer"},
	{"quote", "quotes", "quotes", "Quote"},
	{"cart", "carts", "carts", "Cart"},
	{"coupon", "coupons", "coupons", "Coupon"},
	{"product", "products", "products", "Product"},
	{"price list", "price lists", "price_lists", "PriceList"},
	{"plan", "plans", "plans", "Plan"},
	{"subscription", "subscriptions", "subscriptions", "Subscription"},
	{"usage record", "usage records", "usage_records", "UsageRecord"},
	{"statement", "statements", "statements", "Statement"},
	{"balance", "balances", "balances", "Balance"},
	{"merchant", "merchants", "merchants", "Merchant"},
	{"supplier", "suppliers", "suppliers", "Supplier"},
	{"tenant", "tenants", "tenants", "Tenant"},
	{"carrier", "carriers", "carriers", "Carrier"},
	{"shipping label", "shipping labels", "shipping_labels", "ShippingLabel"},
	{"stock level", "stock levels", "stock_levels", "StockLevel"},
	{"return", "returns", "returns", "Return"},
	{"voucher", "vouchers", "vouchers", "Voucher"},
	{"ledger entry", "ledger entries", "ledger_entries", "LedgerEntry"},
	{"notification", "notifications", "notifications", "Notification"},
	{"export", "exports", "exports", "Export"},
	{"supplier invoice", "supplier invoices", "supplier_invoices", "SupplierInvoice"},
	{"customer address", "customer addresses", "customer_addresses", "CustomerAddress"},
	{"audit event", "audit events", "audit_events", "AuditEvent"},
	{"api key", "api keys", "api_keys", "APIKey"},
}

var fillerColumns = []string{
	"tenant_id", "merchant_id", "order_id", "payout_id", "external_ref", "status", "state",
	"updated_at", "deleted_at", "amount_minor", "currency_code", "retry_count", "next_attempt_at",
	"processed_at", "request_key", "sku_code", "warehouse_id", "carrier_code", "tracking_number",
	"region", "locale", "email_hash", "version", "shipped_at", "cancelled_at", "priority",
	"batch_id", "source", "partner_id", "settled_at",
}

var fillerVerbs = []string{
	"Load", "Save", "Sync", "Build", "Parse", "Handle", "Apply", "Fetch", "Flush", "Compute",
	"Render", "Validate", "Reconcile", "Publish", "Enqueue", "Resolve", "Refresh", "Create",
	"Update", "Delete", "List", "Find", "Mark", "Close", "Schedule", "Cancel", "Expire",
	"Import", "Export", "Notify", "Emit", "Encode", "Decode", "Normalize", "Merge", "Settle",
	"Allocate", "Reserve", "Release", "Quote", "Ship", "Track",
}

var fillerSuffixes = []string{"", "", "", "Batch", "ByID", "ForTenant", "Tx", "Async", "Page", "Once", "WithRetry", "Locked"}

var fillerTypeSuffixes = []string{"Service", "Repository", "Handler", "Client", "Store", "Worker", "Consumer", "Publisher", "Cache", "Validator", "Builder", "Scheduler"}

var fillerPackages = []string{
	"orders", "payouts", "shipping", "catalog", "pricing", "notify", "audit", "queue", "store",
	"httpapi", "grpcapi", "metrics", "authz", "tenants", "outbox", "partners", "ledger",
	"reconcile", "stock", "quotes", "carriers", "exports", "search", "events", "platform",
}

var fillerApps = []string{"storefront", "admin", "partner-portal", "backoffice", "docs-site", "merchant-app"}

var fillerPages = []string{"OrderList", "Checkout", "ProductDetail", "PayoutHistory", "Settings", "Onboarding", "ReturnsQueue", "StockOverview", "PriceEditor", "MerchantProfile", "ShipmentTracking", "Dashboard", "Reports", "SearchResults", "CartDrawer"}

var fillerComponents = []string{"DataGrid", "DateRangePicker", "AddressForm", "PriceTag", "StatusBadge", "Pagination", "Modal", "Toast", "FileDrop", "SearchBox", "OrderRow", "Sidebar", "CurrencyInput", "Stepper", "Chart", "FilterBar", "Avatar", "EmptyState"}

var fillerExternal = []string{
	"the carrier API", "the tax provider", "the payment provider", "the ERP", "the fraud check",
	"the geocoding API", "the FX rates feed", "Salesforce", "HubSpot", "Twilio", "SendGrid",
	"the bank's SFTP server", "Adyen", "PayPal", "Shopify", "the address validation service", "Stripe",
}

var fillerTools = []string{"Kafka", "RabbitMQ", "SQS", "DynamoDB", "Elasticsearch", "ClickHouse", "Memcached", "nginx", "Envoy", "Vault", "Terraform", "Argo CD", "Datadog", "Sentry", "Cloudflare", "Airflow", "BigQuery"}

var fillerWhen = []string{
	"after the {version} release", "during the load test", "on the first day of the month",
	"in staging", "under load", "in production last week", "every night around 02:00 UTC",
	"after the node pool upgrade", "since the move to {tool}", "on the first deploy of the day",
	"when {ext} was slow", "right after the schema change", "for tenants with more than {n}k {nouns}",
	"twice this week", "in the canary only", "on the smallest pod size",
}

var fillerEnvs = []string{"staging", "production", "sandbox", "dev", "the preview environment", "the load-test cluster"}

// fillerTopic is one area of software work: what its notes say.
type fillerTopic struct {
	name   string // a journal entry's feature_id and a knowledge entry's feature
	weight int
	tags   []string
	// titles of knowledge entries, after "<Service>: ".
	titles []string
	// stories are what went wrong, why and what holds since: a symptom
	// and a cause (clauses) and a fix (a sentence).
	stories [][3]string
	// checks are clauses; rules, decisions, facts and work are
	// sentences; attempts are what an agent tried.
	rules, decisions, facts, work, attempts, checks []string
	errs                                            []string // error messages
	files                                           []string // paths
	// category is the error_category of a failed iteration.
	category []string
}

var fillerTopics = []fillerTopic{
	{
		name: "database", weight: 12,
		tags:   []string{"postgres", "database", "migrations", "sql", "indexes", "replication", "performance", "mysql", "schema"},
		titles: []string{"Postgres conventions", "read replicas and stale reads", "schema migrations", "the outbox table", "indexes we rely on", "bulk imports into {table}", "partitioning {table}", "database roles and grants", "connection limits per service", "vacuum and table bloat", "JSONB columns", "soft deletes", "running SQL by hand in production", "the {table} table"},
		stories: [][3]string{
			{"p99 of {route} went from {ms} ms to {n} seconds", "the filter used lower({col}) and the index was on {col}", "The query uses an expression index on lower({col}) now, created CONCURRENTLY in a migration of its own."},
			{"reads right after a write returned the old row", "the repository read from the replica, which lags by a few hundred milliseconds", "Writes and the reads that follow them go to the primary; the replica serves the reports only."},
			{"the {svc} pods ran out of memory in the nightly {job} job", "the ORM loaded every row of {table} into memory before filtering", "{func} streams rows with a cursor in batches of {n}00."},
			{"the {table} table grew to {n} times its size in rows", "autovacuum could not keep up with the updates on {table}", "Autovacuum runs more often on {table} (scale factor 0.0{m}), and ANALYZE runs after every bulk load."},
			{"inserts into {table} slowed down once the table passed {n}M rows", "every insert checked a foreign key on {table}.{col}, which had no index", "{table}.{col} has an index now; a check in CI reads the migrations for foreign keys without one."},
			{"a deploy that added a column to {table} blocked writes for {n} seconds", "the migration rewrote the whole table to add a column with a volatile default", "The column is added without a default, backfilled in batches of {n}00, and the default set afterwards."},
			{"the {svc} job held a connection for minutes and the pool ran dry", "the job opened a transaction and then called {ext}", "The job commits first and calls {ext} after the transaction."},
			{"the nightly {job} job went from {n} minutes to {n} hours", "the query planner picked a nested loop after the statistics went stale", "ANALYZE {table} runs at the end of the import, before the {job} job."},
			{"{route} made {n}00 queries for one page", "{func} ran one query per row (an N+1 over {table})", "{func} loads the related rows in one query with = ANY($1)."},
			{"the same {noun} was written twice when two requests raced", "both handlers checked for the row and then inserted it", "A unique index on ({col}, {col2}) makes the second insert fail, and the handler then reads the row the first one wrote."},
			{"counts on the dashboard were off by a few rows", "soft-deleted rows were still counted", "Every list query filters on deleted_at IS NULL through the active_{table} view."},
			{"{svc} could not write for ten minutes after the database failover", "the connection string still pointed at the old primary's address", "{Svc} connects through the cluster's writer endpoint name, never an address."},
		},
		rules: []string{
			"Migrations in {svc} are forward-only; a bad one is fixed by the next one.",
			"Raw SQL lives next to the repository that runs it, in internal/{pkg}/queries.sql.",
			"Repository methods take a context and never start their own transaction; the service layer owns transactions.",
			"Column names are snake_case and tables plural; enum values are stored as text with a CHECK constraint.",
			"Anything that touches more than {n}k rows runs as a batch job, never inside a request.",
			"Every foreign key gets an index; a check in CI reads the migrations for it.",
			"Test data comes from the builders in internal/{pkg}/builders_test.go, not from SQL fixtures.",
			"Every new table in {svc} gets {col} and updated_at, and an index on {col}.",
		},
		decisions: []string{
			"{Svc} keeps its own database rather than tables in the shared one, because its schema changes every week and the others' do not.",
			"Atlas rather than hand-written migrations for {svc}, because it diffs the schema file against the database and shows the plan in the pull request.",
			"UUIDv7 primary keys in {svc} rather than bigserial, because ids are created on the clients before the first sync.",
			"Soft deletes (deleted_at) in {svc} rather than hard deletes, because support restores {nouns} by hand about once a week.",
			"The {table} table is partitioned by month, because the retention job deleted {n}M rows a night and vacuum never caught up.",
			"The legacy {svc} database stays on MySQL until the rewrite; new services use Postgres.",
			"An outbox table in {svc} rather than publishing to Kafka inside the request, because a publish that failed after the commit lost events.",
		},
		facts: []string{
			"{Svc}'s database is a db.{instance} instance with {n}00 GB of storage; the replica is in another zone.",
			"The {table} table holds about {n}M rows and grows by {m}k a day.",
			"Only the {svc}_owner role may run DDL; the service role has DML grants only.",
			"The replica lags {ms} ms on average and up to {n} s during the nightly import.",
			"{Svc} runs its migrations from a separate binary in the release pipeline, before the new pods start.",
		},
		work: []string{
			"Added a partial index on {table}({col}) WHERE {col2} IS NOT NULL and dropped the old full index.",
			"Moved the {nouns} report queries to the replica and added a staleness note to the dashboard.",
			"Backfilled {table}.{col} in batches of {n} with a resumable job.",
			"Split {func} into a read path and a write path so that the write path always uses the primary.",
			"Added the outbox table for {nouns} and a relay that publishes to {tool}.",
			"Wrote the migration that adds {col} to {table}, nullable, with the backfill as a separate job.",
		},
		attempts: []string{
			"Added the index on {table} in the same migration as the column",
			"Ran the backfill of {table} as one UPDATE",
			"Switched {func} to read from the replica",
			"Wrapped {func} in a serializable transaction",
			"Raised the pool size of {svc} to {n}",
		},
		checks: []string{
			"look at pg_stat_statements for the slowest queries first",
			"run EXPLAIN (ANALYZE, BUFFERS) with production parameters",
			"compare the row counts on the primary and the replica",
			"check the migration's plan in the pull request before merging",
		},
		errs: []string{
			`ERROR: relation "{table}" does not exist (SQLSTATE 42P01)`,
			`ERROR: null value in column "{col}" of relation "{table}" violates not-null constraint (SQLSTATE 23502)`,
			`ERROR: duplicate key value violates unique constraint "{table}_{col}_key" (SQLSTATE 23505)`,
			`ERROR: column "{col}" does not exist (SQLSTATE 42703)`,
			`ERROR: value too long for type character varying({n}0) (SQLSTATE 22001)`,
			`ERROR: could not serialize access due to concurrent update (SQLSTATE 40001)`,
			`sql: no rows in result set`,
			`{lfunc}: context deadline exceeded`,
			`ERROR: permission denied for table {table} (SQLSTATE 42501)`,
		},
		files:    []string{"internal/{pkg}/repository.go", "internal/{pkg}/postgres.go", "internal/{pkg}/queries.sql", "db/migrations/2026{mmdd}_{table}.up.sql", "internal/{pkg}/repository_test.go", "services/{svc}/store/{pkg}.go"},
		category: []string{"logic_error", "performance", "dependency_error", "concurrency"},
	},
	{
		name: "cache", weight: 6,
		tags:   []string{"redis", "cache", "memcached", "cdn", "performance"},
		titles: []string{"caching", "what lives in Redis", "the CDN in front of {app}", "cache keys and expiry", "the in-process cache"},
		stories: [][3]string{
			{"the hit rate of the {noun} cache fell to {n}%", "the cache key held the request's full query string, tracking parameters included", "Cache keys are built by {func} from the tenant id and the {noun} id only."},
			{"Redis memory grew by {n}% a week", "keys were written without an expiry", "Every key in {svc} gets an expiry of at most {n} hours, with a little random spread."},
			{"customers saw another tenant's {noun} for a few seconds", "the CDN cached the response because it had no Cache-Control header", "Responses of {route} carry Cache-Control: private, no-store."},
			{"every pod asked {ext} for the same {noun} at the same moment", "the in-process cache of every pod expired at once", "The {noun} cache is refreshed ahead of its expiry by a background loop in each pod, at a random offset."},
			{"commands to Redis took {ms} ms at the top of every minute", "a Lua script walked every key of a set on each call", "The script is gone; {func} keeps a counter next to the set instead."},
			{"{app} showed yesterday's prices for an hour after a price change", "the CDN kept the product pages for a day", "The release job and the price editor purge the changed product paths from the CDN."},
		},
		rules: []string{
			"Nothing in Redis is the only copy of anything; {svc} can rebuild every key from Postgres.",
			"Cache reads in {svc} go through {func}, which records hits and misses.",
			"Redis in {svc} is a cache only; locks and counters live elsewhere.",
		},
		decisions: []string{
			"Memcached rather than Redis for the {app} page fragments, because they need no persistence and no data types.",
			"An in-process LRU for {nouns} in {svc} rather than a shared cache, because the set is small and changes once a day.",
		},
		facts: []string{
			"{Svc} uses a Redis cluster with {n} shards; keys are prefixed with {svc}:.",
			"The CDN caches {app} assets for a year; the file names carry a content hash.",
		},
		work: []string{
			"Added a cache for {nouns} in front of {ext}, keyed by tenant and {col}, with a {n}-minute expiry.",
			"Replaced the hand-rolled cache in {file} with the shared cache client.",
		},
		attempts: []string{"Raised the expiry of the {noun} cache to {n} hours", "Cached {route} at the CDN"},
		checks:   []string{"running redis-cli --bigkeys on a replica shows what takes the memory", "compare the hit rate before and after the deploy in the dashboard"},
		errs:     []string{"redis: connection pool timeout", "READONLY You can't write against a read only replica.", "OOM command not allowed when used memory > 'maxmemory'.", "dial tcp {ip}:{port}: connect: connection refused", "memcache: cache miss"},
		files:    []string{"internal/{pkg}/cache.go", "internal/cachex/{pkg}.go", "apps/{app}/next.config.js"},
		category: []string{"performance", "logic_error", "environment_error"},
	},
	{
		name: "jobs", weight: 9,
		tags:   []string{"kafka", "queue", "jobs", "sqs", "cron", "outbox", "retries", "consumers", "events"},
		titles: []string{"Kafka topics and consumer groups", "the {noun} events", "dead-letter queues", "cron jobs", "the scheduler", "event schemas", "replaying events"},
		stories: [][3]string{
			{"consumer lag on the {noun} topic grew to {n}0k messages", "the handler called {ext} for every message, one at a time", "The consumer handles messages in batches of {n}0 and calls {ext} once per batch."},
			{"the {noun} consumer processed some messages twice", "the consumer committed offsets only every few seconds, and a restart replayed the rest", "Handlers are safe to run twice: they record the message id in the same transaction as their change."},
			{"messages piled up in the dead-letter queue overnight", "the visibility timeout was shorter than the slowest handler, so messages came back while still in work", "The visibility timeout is {n} minutes, longer than the slowest handler, and the handler has its own timeout below it."},
			{"the {job} cron job ran on every pod at once", "the cron schedule lived in every replica instead of the scheduler", "Cron jobs run from the scheduler service only, with a lock per job name."},
			{"one bad message stopped a whole partition of the {noun} topic", "a message with an unknown schema version made the handler panic, and the consumer retried it forever", "The handler skips messages with an unknown schema version, moves them to the dead-letter topic and counts them in a metric."},
			{"events of the same {noun} arrived out of order", "events were keyed by a random id instead of the {noun} id, so they spread over partitions", "Events are keyed by {col}, so all events of one {noun} land on one partition."},
			{"{svc} lost {noun} events when it crashed", "the event was published after the commit, and a crash in between dropped it", "Events go into the outbox table in the same transaction, and a relay publishes them to {tool}."},
		},
		rules: []string{
			"Every event carries a schema version, the {noun} id and the time it happened, not the time it was sent.",
			"Handlers in {svc} must be safe to run twice for the same message.",
			"Event names are past tense: {table}.created, {table}.shipped.",
			"A job that calls {ext} gets a timeout of its own, shorter than the queue's visibility timeout.",
		},
		decisions: []string{
			"Kafka rather than SQS for {noun} events, because three services read them and each needs its own offset.",
			"SQS for the {svc} work queue rather than Kafka, because the work is not ordered and SQS scales to zero.",
			"Events go through the outbox table rather than straight to Kafka, because a crash between the commit and the publish lost events.",
		},
		facts: []string{
			"The {noun} topic has {n}2 partitions and keeps messages for 7 days.",
			"{Svc}'s consumer group is {svc}-{noun}-v{n}; a new version of the handler gets a new group and replays from the start.",
			"Dead-letter queues are named after their queue with a -dlq suffix and are checked by the on-call every morning.",
		},
		work: []string{
			"Added a dead-letter queue for the {noun} consumer, with an alert on its depth.",
			"Moved the {job} job from a cron entry in the {svc} pods to the scheduler.",
			"Added a replay command that reads the {noun} topic from a timestamp into a new consumer group.",
		},
		attempts: []string{"Raised the consumer's max.poll.interval.ms to {n}0 minutes", "Retried the {noun} handler in a loop inside the consumer", "Ran the {job} job on every replica with a random delay"},
		checks:   []string{"running kafka-consumer-groups --describe shows the lag per partition", "read the first message of the dead-letter queue before replaying anything"},
		errs: []string{
			"kafka: client has run out of available brokers to talk to",
			"kafka server: The provided member is not known in the current generation",
			"AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist",
			"context canceled",
			"message {hex} exceeded the max receive count ({n}), moved to {svc}-{noun}-dlq",
			"json: cannot unmarshal string into Go struct field {type}.{lfield} of type int64",
		},
		files:    []string{"internal/{pkg}/consumer.go", "internal/{pkg}/producer.go", "internal/events/{noun}.go", "cmd/{svc}-worker/main.go", "internal/scheduler/jobs.go"},
		category: []string{"logic_error", "concurrency", "environment_error", "timeout"},
	},
	{
		name: "api", weight: 10,
		tags:   []string{"api", "http", "grpc", "gateway", "timeouts", "clients", "partners", "webhooks", "openapi"},
		titles: []string{"calling {ext}", "the public API", "API versioning", "the gateway", "gRPC between services", "partner webhooks", "request limits", "error responses"},
		stories: [][3]string{
			{"calls to {ext} hung until the gateway gave up after {n}0 seconds", "the HTTP client had no timeout", "Every client of {ext} has a {n}-second timeout and at most {m} retries."},
			{"{ext} answered 429 during the morning peak", "every pod retried at once, with no delay and no limit", "Retries to {ext} wait with exponential delays, at most {m} of them, and respect Retry-After."},
			{"the gateway returned 502 for {route} for a minute after each deploy", "new pods were marked ready before their {noun} cache was loaded, and the first requests timed out", "The readiness check of {svc} waits until the {noun} cache is loaded."},
			{"responses of {route} grew to {n} MB", "the endpoint returned every {noun} of the tenant in one response", "{route} returns at most {n}00 items and a next link."},
			{"partners got every webhook of the day twice after an outage", "the delivery log was written after the partner answered, so the replay sent everything again", "Webhook deliveries to partners are recorded before they are sent and retried from the record."},
			{"a partner on an old SDK got a 500 for every request", "the decoder rejected the whole request for one unknown field", "The decoder ignores unknown fields, and {col} accepts a string or a number."},
			{"gRPC calls from {svc} failed for a minute after every scale-down", "the client kept its connections to pods that were gone", "gRPC clients of {svc} balance round-robin over the headless service with keepalives every {n}0 seconds."},
		},
		rules: []string{
			"Every error response in {svc} is JSON with code, message and request_ref.",
			"Public endpoints are documented in the OpenAPI file first and the handler written after.",
			"Calls between services go through the gateway with a service token, never straight to a pod.",
			"A handler that calls {ext} passes its context, so a cancelled request cancels the call.",
		},
		decisions: []string{
			"gRPC between {svc} and {svc2} rather than JSON over HTTP, because the {noun} messages have {n}0 fields and change often.",
			"The partner API of {svc} is versioned by date in a header, because partners pin a version for years.",
			"Envoy as the gateway rather than nginx, because we needed per-route retries and outlier detection.",
		},
		facts: []string{
			"{ext} allows {n}00 requests a minute per account; {svc} keeps under half of it.",
			"The gateway keeps idle connections to {svc} open for {n}0 seconds.",
			"{Svc}'s public API is at /v{n}; the previous version is served until the end of the year.",
		},
		work: []string{
			"Added a client for {ext} with a timeout, retries on 5xx and a circuit breaker.",
			"Documented {route} in the OpenAPI file and generated the client for {app}.",
			"Added request size limits to {svc}'s upload endpoints.",
		},
		attempts: []string{"Raised the gateway timeout for {route} to {n}0 seconds", "Retried calls to {ext} immediately on any error", "Streamed {route} without a limit"},
		checks:   []string{"the gateway's access log has the upstream time of every request", "replay the request with curl -v against {env}"},
		errs: []string{
			`Post "https://api.{host}/v1/{nouns}": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)`,
			"429 Too Many Requests",
			"upstream connect error or disconnect/reset before headers. reset reason: connection termination",
			"rpc error: code = DeadlineExceeded desc = context deadline exceeded",
			`rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp {ip}:{port}: connect: connection refused"`,
			"http2: server sent GOAWAY and closed the connection",
			"read tcp {ip}:{port}->{ip}:{port}: read: connection reset by peer",
			"net/http: TLS handshake timeout",
			"502 Bad Gateway",
		},
		files:    []string{"internal/httpapi/{pkg}.go", "internal/{pkg}/client.go", "api/openapi.yaml", "internal/grpcapi/{pkg}_server.go", "proto/{pkg}/v1/{pkg}.proto"},
		category: []string{"timeout", "logic_error", "dependency_error", "environment_error"},
	},
	{
		name: "auth", weight: 5,
		tags:   []string{"auth", "security", "sso", "api-keys", "secrets", "cors", "tokens", "permissions"},
		titles: []string{"single sign-on", "API keys", "secrets in Vault", "roles and permissions", "service tokens", "CORS for {app}"},
		stories: [][3]string{
			{"merchants were signed out of {app} every hour", "the token was refreshed only on page load", "{App} refreshes the token in the background a minute before it expires."},
			{"an API key kept working for a day after it was revoked", "the key lookup was cached for a day", "Revoked keys are checked on every request against a list kept in memory for {n} seconds."},
			{"{app} could not call the API from its new domain", "the allowed origins list still had the old domain only", "Allowed origins come from config per environment and include every {app} domain."},
			{"SAML logins failed for one customer's identity provider", "the identity provider's certificate had rotated", "The identity provider's metadata is fetched every night instead of pasted into config."},
			{"a support user could see {nouns} of every tenant", "the role check ran in {app} and not in the API", "Permissions are checked in the API, per {noun}, by {func}."},
		},
		rules: []string{
			"Secrets of {svc} are rotated every {n}0 days by {team}, and the rotation is logged.",
			"API keys are shown once and stored hashed; {svc} logs only their prefix.",
			"Every internal endpoint requires a service token, even inside the cluster.",
		},
		decisions: []string{
			"Keycloak rather than building SSO into {svc}, because three apps need it and SAML is a lot of code.",
			"Short-lived service tokens from Vault rather than shared secrets between services, because a leaked secret could not be traced to one service.",
		},
		facts: []string{
			"{Svc}'s service token is valid for {n} hours and renewed at half its life.",
			"Support users get read-only roles in {app}; writes need a ticket number.",
		},
		work: []string{
			"Added per-{noun} permission checks to {svc} and tests for every role.",
			"Moved {svc}'s database password to Vault with a {n}-hour lease.",
		},
		attempts: []string{"Cached permission checks of {svc} for {n} minutes", "Allowed every origin in {env}"},
		checks:   []string{"decode the token at the gateway's debug endpoint and compare the scopes", "the identity provider's logs say which assertion failed"},
		errs: []string{
			"401 Unauthorized: invalid api key",
			"403 Forbidden: missing scope {nouns}:write",
			"x509: certificate signed by unknown authority",
			"Access to fetch at 'https://api.{host}/v1/{nouns}' from origin 'https://{app}.{host}' has been blocked by CORS policy",
			"vault: permission denied",
		},
		files:    []string{"internal/authz/{pkg}.go", "internal/authz/policy.go", "deploy/vault/{svc}.hcl", "apps/{app}/src/auth/session.ts"},
		category: []string{"permission_error", "logic_error", "environment_error"},
	},
	{
		name: "ci", weight: 10,
		tags:   []string{"ci", "github-actions", "lint", "build", "caching", "flaky", "releases", "monorepo"},
		titles: []string{"the CI pipeline", "caches in CI", "release workflow", "code generation checks", "CI runners", "the monorepo build"},
		stories: [][3]string{
			{"the {wf} workflow took {n}0 minutes", "the job ran every service's tests for a change in one", "The {wf} workflow only runs the tests of the services a change touches."},
			{"CI restored a cache from before the dependency update and failed to build", "the cache key did not include the lock file", "Cache keys include the hash of the lock file and the runner's OS."},
			{"Test{Func} failed about once in {n}0 runs", "two tests used the same temporary directory", "Every test gets its own directory from t.TempDir()."},
			{"the nightly build went red without a change of ours", "the workflow used a floating version of an action", "Actions are pinned to a commit sha and updated by a bot every week."},
			{"generated code in the pull request did not match what CI generated", "the generator version in CI differed from the one in the Makefile", "Generated files are checked by running the generator in CI and failing on a diff; the version comes from tools.mod."},
			{"the self-hosted runners ran out of disk every few days", "old Docker layers were never pruned", "The runners prune Docker every night and alert at {n}0% disk."},
			{"a release tag of {svc} built the wrong commit", "the release workflow checked out the branch, not the tag", "The release workflow checks out the tag it was started by."},
		},
		rules: []string{
			"Every workflow has a timeout; none runs longer than {n}0 minutes.",
			"A flaky test in {svc} gets a ticket and a skip with the ticket number.",
			"Lint, unit tests and build run on every pull request; the slow end-to-end suite runs on main and nightly.",
			"CI uses the same make targets as a laptop: make lint, make test, make build.",
		},
		decisions: []string{
			"Buildkite for the {svc} monorepo rather than GitHub-hosted runners, because a full build needs {n}2 cores and a warm cache.",
			"Turborepo for the front-end apps, because it skips the apps a change does not touch.",
			"Release Please rather than tagging by hand, because the changelog of {svc} was always out of date.",
		},
		facts: []string{
			"The {wf} workflow runs on every push to main and takes about {n} minutes.",
			"Test results are uploaded as JUnit files and shown on the pull request.",
		},
		work: []string{
			"Split the {wf} workflow into lint, test and build jobs that run in parallel.",
			"Added a check that fails CI when generated code for {svc} is out of date.",
			"Moved the end-to-end tests of {app} to a nightly workflow with a Slack report.",
		},
		attempts: []string{"Retried the {wf} job up to three times", "Raised the timeout of the {wf} workflow to {n}0 minutes", "Cached the whole build directory between runs"},
		checks:   []string{"run the job locally with act to see the difference", "compare the cache key of the failing run with the last green one"},
		errs: []string{
			"Error: Process completed with exit code {n}.",
			"The operation was canceled.",
			"The job running on runner {runner} has exceeded the maximum execution time of {n}0 minutes.",
			"go: updates to go.mod needed; to update it: go mod tidy",
			"missing go.sum entry for module providing package github.com/acme/{svc}/internal/{pkg}",
			"Error: No files were found with the provided path: {app}/dist. No artifacts will be uploaded.",
			"Cache not found for input keys: {os}-{wf}-go-mod, {os}-{wf}-",
			"error: failed to push some refs to 'github.com:acme/{svc}.git'",
		},
		files:    []string{".github/workflows/{wf}.yml", ".buildkite/pipeline.yml", "Makefile", "scripts/{script}.sh", "turbo.json"},
		category: []string{"test_failure", "environment_error", "dependency_error", "timeout"},
	},
	{
		name: "deploy", weight: 10,
		tags:   []string{"docker", "kubernetes", "deploy", "terraform", "infra", "argocd", "aws", "networking"},
		titles: []string{"deploying {svc}", "the Kubernetes cluster", "Terraform layout", "container images", "autoscaling", "DNS and certificates", "cost of the clusters"},
		stories: [][3]string{
			{"pods of {svc} were OOMKilled under load", "the memory limit was lower than the heap the service needs at peak", "{Svc}'s memory limit is {n} GiB and GOMEMLIMIT is set to 90% of it."},
			{"the rollout of {svc} stalled with half the pods pending", "the cluster had no capacity left in that zone", "Karpenter may add nodes in every zone, and the deployment spreads over zones with topology constraints."},
			{"the image of {svc} grew to {n} GB", "the build stage's toolchain was copied into the final image", "The final image is built FROM scratch with the binary and CA certificates only."},
			{"a Terraform plan wanted to replace the {noun} bucket", "a provider upgrade changed the default of a bucket setting", "The bucket's settings are explicit in Terraform, and plans that replace it fail the pipeline."},
			{"DNS lookups from the {svc} pods took seconds at times", "ndots:5 made every lookup try five search domains first", "Pods set ndots:2 and external names end with a dot."},
			{"the new nodes could not pull images", "the node role lacked permission to read the registry", "The node role has read access to the registry through the shared Terraform module."},
			{"the cluster cost twice the budget", "requests were set far above what the pods use", "Requests follow the p95 of the last two weeks, reviewed every quarter."},
		},
		rules: []string{
			"Every deployment has requests, limits, a readiness check and a PodDisruptionBudget.",
			"Infrastructure changes go through Terraform in the infra repository; nothing is clicked in the console.",
			"Images are tagged with the commit sha, never latest.",
			"Argo CD syncs {svc} from the deploy repository; kubectl edit is for emergencies and is reverted after.",
		},
		decisions: []string{
			"Argo CD rather than deploying from CI with kubectl, because the cluster should converge to what git says even after a manual change.",
			"Karpenter rather than the cluster autoscaler, because it picks instance types for the pods that wait.",
			"One cluster per environment rather than namespaces in a shared one, because a bad network policy in staging once broke production.",
		},
		facts: []string{
			"{Svc} runs {n} replicas in production and scales to {m}0 on CPU.",
			"Staging is scaled down to zero every night at 20:00 UTC and back up at 06:00.",
			"The clusters run in eu-central-1 and us-east-2; {svc} runs in both.",
		},
		work: []string{
			"Moved {svc} to the new node pool with a PodDisruptionBudget of one.",
			"Rewrote {svc}'s Dockerfile as a multi-stage build; the image went from {n}00 MB to {m}0 MB.",
			"Imported the {noun} bucket into Terraform and removed the hand-made policy.",
		},
		attempts: []string{"Raised the memory limit of {svc} to {n} GiB", "Applied the Terraform plan with -target on the bucket", "Restarted the {svc} pods one by one"},
		checks:   []string{"the output of kubectl describe pod shows the last state and its exit code", "terraform plan on a clean checkout shows what drifted"},
		errs: []string{
			"Back-off restarting failed container",
			"OOMKilled",
			"ImagePullBackOff",
			"0/{n} nodes are available: {n} Insufficient memory.",
			`Readiness probe failed: Get "http://{ip}:{port}/ready": context deadline exceeded`,
			`failed to solve: process "/bin/sh -c make build" did not complete successfully: exit code: {n}`,
			"no space left on device",
			"Error acquiring the state lock",
			"Error: creating S3 Bucket ({svc}-{nouns}): AccessDenied",
		},
		files:    []string{"deploy/k8s/{svc}/deployment.yaml", "infra/terraform/{svc}/main.tf", "services/{svc}/Dockerfile", "argocd/apps/{svc}.yaml", "infra/terraform/modules/{pkg}/variables.tf"},
		category: []string{"environment_error", "permission_error", "performance"},
	},
	{
		name: "frontend", weight: 10,
		tags:   []string{"frontend", "react", "nextjs", "css", "forms", "jest", "cypress", "storybook", "accessibility", "web"},
		titles: []string{"the {app} app", "state management in {app}", "forms", "the design system", "front-end tests", "bundle size", "accessibility"},
		stories: [][3]string{
			{"the {page} page flashed unstyled content on first load", "the CSS was loaded by a script after the first paint", "Critical CSS is inlined in the document head; the rest loads with the page's chunk."},
			{"the {app} bundle grew to {n} MB", "the whole icon library was imported for one icon", "Icons are imported one by one; the bundle is checked in CI against a budget of {n}00 kB."},
			{"the {comp} re-rendered on every keystroke", "the whole form state lived in one React context, so every field re-rendered all the others", "Each field subscribes to its own value, and the context holds only the actions."},
			{"the form on the {page} page was submitted twice on a double click", "the submit button was not disabled while the request was in flight", "The submit button is disabled while the mutation is pending."},
			{"the {comp} froze with {n}000 rows", "every row of the table was rendered, not only the visible ones", "The {comp} is virtualised and renders only the rows in view."},
			{"users got a stale {app} after the release", "the service worker cached index.html", "index.html is served with no-cache; the assets keep their content-hashed names."},
			{"dates on the {page} page were a day off for users in America", "the date was parsed with new Date() from a string without an offset", "Dates come from the API as ISO strings with an offset and are formatted with Intl.DateTimeFormat."},
			{"screen readers announced the {comp} as a plain div", "the component had no role and no label", "The {comp} has a role and an aria-label, and its Storybook story runs the axe check."},
		},
		rules: []string{
			"Components in packages/ui have a Storybook story and no data fetching.",
			"Server data in {app} goes through the generated API client; components never call fetch.",
			"Every form in {app} validates on the client and shows the API's field errors as well.",
			"CSS is Tailwind; no new CSS files in {app}.",
		},
		decisions: []string{
			"Next.js for {app} rather than a single-page app, because the product pages must be indexed by search engines.",
			"Redux Toolkit stays in the {app} app for now; new screens keep their state in the URL and in the API client's cache.",
			"Cypress rather than Selenium for the {app} end-to-end tests, because the tests run in the browser and retry assertions.",
		},
		facts: []string{
			"The {app} app is built with Next.js and deployed as a container next to {svc}.",
			"The design system lives in packages/ui and is published to the internal registry on every merge.",
		},
		work: []string{
			"Added an empty state and a loading skeleton to the {page} page.",
			"Moved the {comp} to packages/ui with a story and tests.",
			"Replaced moment with date-fns in {app}; the bundle lost {n}0 kB.",
		},
		attempts: []string{"Memoised every callback of the {comp}", "Wrapped the {page} page in an error boundary and retried the request", "Pinned the service worker to the previous build"},
		checks:   []string{"the React profiler shows which props changed on every render", "open the {page} page with the cache disabled in the network tab"},
		errs: []string{
			"TypeError: Cannot read properties of null (reading '{lfield}')",
			"Error: Hydration failed because the initial UI does not match what was rendered on the server.",
			`Warning: Each child in a list should have a unique "key" prop.`,
			"Module not found: Error: Can't resolve '@acme/{pkg}'",
			`SyntaxError: Unexpected token '<', "<!DOCTYPE "... is not valid JSON`,
			"ChunkLoadError: Loading chunk {n}{m} failed.",
			"Error: Too many re-renders. React limits the number of renders to prevent an infinite loop.",
			"npm ERR! code ERESOLVE",
			"Type 'string | undefined' is not assignable to type 'string'.",
		},
		files:    []string{"apps/{app}/src/components/{comp}.tsx", "apps/{app}/src/pages/{page}.tsx", "packages/ui/src/{comp}.tsx", "apps/{app}/src/hooks/use{Noun}.ts", "apps/{app}/cypress/e2e/{page}.cy.ts", "apps/{app}/src/{comp}.test.tsx"},
		category: []string{"logic_error", "test_failure", "dependency_error", "performance"},
	},
	{
		name: "observability", weight: 7,
		tags:   []string{"logging", "metrics", "tracing", "alerts", "datadog", "grafana", "sentry", "slo"},
		titles: []string{"alerts for {svc}", "dashboards", "log levels and fields", "SLOs", "on-call runbook for {svc}"},
		stories: [][3]string{
			{"the {svc} alert fired every night and nobody looked at it any more", "the alert fired on a single bad minute", "Alerts of {svc} fire on the error budget burn rate over an hour, not on one minute."},
			{"logs of {svc} cost {n} times the budget", "debug logs were left on in production", "Debug logs are sampled to one in {n}00 in production."},
			{"a slow request in {svc} could not be followed past the gateway", "the gateway did not pass the trace headers on", "The gateway passes traceparent on, and {svc} starts its spans from it."},
			{"the error rate panel showed nothing during an outage", "the panel counted 5xx from the pods, which were down", "The error rate panel counts at the load balancer."},
			{"Sentry grouped unrelated errors of {app} into one issue", "the error messages held the {noun} id, so the fingerprint was useless", "Error messages are constant; ids go into the tags."},
		},
		rules: []string{
			"Every alert has a runbook link and an owner; an alert nobody acts on is deleted.",
			"Log fields are snake_case and the message is a constant string.",
			"Metrics of {svc} are named {svc}_<what>_<unit>; counters end in _total.",
		},
		decisions: []string{
			"Datadog for {svc} logs rather than Loki, because the data team already queries Datadog.",
			"SLOs per user journey (checkout, payout) rather than per service, because the services fail each other.",
		},
		facts: []string{
			"{Svc}'s SLO is {n}9.{m}% of {route} under {ms} ms over 28 days.",
			"The on-call rotation for {svc} is weekly, handed over on Tuesday at 10:00.",
		},
		work: []string{
			"Added a dashboard for {svc}: request rate, errors, latency, saturation, and the queue depth.",
			"Replaced the {svc} CPU alerts with a burn-rate alert on the SLO.",
		},
		attempts: []string{"Raised the alert threshold of {svc} to {n}%", "Logged the full request body of {route}"},
		checks:   []string{"find the trace id in the gateway log and open the trace", "compare the dashboard with the load balancer's own metrics"},
		errs: []string{
			"traces export: rpc error: code = Unavailable desc = connection error",
			`level=warn msg="Error on ingesting samples that are too old or are too far into the future"`,
			`error sending alert: Post "https://events.pagerduty.com/v2/enqueue": dial tcp: lookup events.pagerduty.com: no such host`,
			"datadog: agent not reachable at {ip}:8126",
		},
		files:    []string{"deploy/monitoring/{svc}.yaml", "internal/platform/logging.go", "dashboards/{svc}.json", "docs/runbooks/{svc}.md"},
		category: []string{"environment_error", "logic_error"},
	},
	{
		name: "testing", weight: 8,
		tags:   []string{"testing", "tests", "go", "mocks", "race", "fixtures", "fuzzing", "contract-tests"},
		titles: []string{"testing {svc}", "test fixtures", "mocks and fakes", "contract tests with partners", "fuzzing the parsers", "end-to-end tests"},
		stories: [][3]string{
			{"Test{Func} failed about once in {n}0 runs", "the tests shared a package-level variable", "Each test builds its own {type} and runs with t.Parallel()."},
			{"the {pkg} tests took {n} minutes", "every test started its own server and waited a second for it", "The tests share one server started in TestMain and reset its state between tests."},
			{"the {pkg} tests passed alone and failed together", "the test relied on the order of rows without ORDER BY", "Queries in tests sort explicitly."},
			{"the race detector reported a race in {file}", "a goroutine wrote to a map that the handler read", "The map is guarded by a mutex, and the package's tests run with -race in CI."},
			{"a mock of {type} returned nil where the real client never does", "the mock was written by hand and drifted from the interface", "Mocks are generated from the interface with mockery and regenerated in CI."},
		},
		rules: []string{
			"Tests in {svc} use fakes for {ext} and a real database.",
			"A bug fixed in {svc} gets a test named after what broke.",
			"Golden files of {svc} are refreshed with -update and reviewed like code.",
			"No sleeping in tests: wait on a channel or poll with a deadline.",
		},
		decisions: []string{
			"Pact contract tests with {ext} rather than a shared staging, because staging was down half the time.",
			"Fuzz tests for the {noun} parser, because partners send files nobody has seen before.",
		},
		facts: []string{
			"The {svc} test suite runs in about {n} minutes on a laptop and {m} in CI.",
			"Coverage of {svc} is reported on pull requests but does not fail them.",
		},
		work: []string{
			"Added table-driven tests for {func}, one case per {noun} state.",
			"Added a fuzz test for the {noun} parser with the partner files from testdata as seeds.",
			"Replaced the hand-written mocks of {type} with generated ones.",
		},
		attempts: []string{"Retried Test{Func} three times in CI", "Raised the test timeout of {pkg} to {n}0 minutes", "Ran the {pkg} tests serially"},
		checks:   []string{"running go test -count={n}0 -race -run Test{Func} reproduces it in a minute", "run the failing test alone and then with the package"},
		errs: []string{
			"--- FAIL: Test{Func} (0.{ms}s)",
			"panic: test timed out after 10m0s",
			"WARNING: DATA RACE",
			"{pkg}_test.go:{line}: got {n}, want {m}",
			"missing call(s) to *mocks.{type}.{Func}(is anything)",
			"Error: Not equal: expected: {n} actual: {m}",
		},
		files:    []string{"internal/{pkg}/{pkg}_test.go", "internal/{pkg}/testdata/{noun}.json", "internal/testutil/{pkg}.go", "internal/{pkg}/mocks/{type}.go"},
		category: []string{"test_failure", "concurrency", "logic_error"},
	},
	{
		name: "process", weight: 4,
		tags:   []string{"process", "review", "oncall", "incident", "ownership", "docs"},
		titles: []string{"code review", "who owns {svc}", "incident reviews", "writing RFCs", "release notes"},
		stories: [][3]string{
			{"pull requests of {svc} waited {n} days for review", "nobody was listed as owner in CODEOWNERS", "CODEOWNERS names {team} for {svc}."},
			{"an incident in {svc} had no owner for an hour", "the alert went to a channel nobody watched", "Alerts of {svc} page the on-call directly."},
		},
		rules: []string{
			"Pull requests in {svc} stay under {n}00 lines; bigger changes are split or get an RFC first.",
			"Every incident gets a review within a week, with actions that have owners and dates.",
			"A change to the public API of {svc} needs a review from {team}.",
		},
		decisions: []string{"RFCs for changes that cross services, because two teams built the same {noun} sync twice."},
		facts: []string{
			"{Svc} is owned by {team}; {person} is the contact for anything about {nouns}.",
			"{Person} runs the {svc} release on Tuesdays and Thursdays.",
			"The {svc} roadmap for the quarter: {nouns} import, faster search, and removing the old {noun} API.",
		},
		work:     []string{"Wrote the review of the {svc} outage with a timeline and four actions.", "Added {svc} to CODEOWNERS and the service catalogue."},
		attempts: []string{"Asked {team} to review the {svc} change"},
		checks:   []string{"ask in the {svc} channel who owns it before changing anything"},
		errs:     []string{"Review required: at least 1 approving review is required by reviewers with write access."},
		files:    []string{"CODEOWNERS", "docs/rfcs/{n}{m}-{pkg}.md", "docs/runbooks/{svc}.md"},
		category: []string{"other"},
	},
	{
		name: "business", weight: 9,
		tags:   []string{"orders", "payouts", "pricing", "shipping", "catalog", "refunds", "reports", "currency"},
		titles: []string{"how {nouns} work", "the {noun} lifecycle", "payout schedule", "shipping rates", "price lists", "refund rules", "merchant onboarding"},
		stories: [][3]string{
			{"a merchant's payout was sent twice", "the payout job had no record of what it had already sent", "Payouts are recorded with their bank reference before they are sent, and the job skips recorded ones."},
			{"{nouns} stayed in the pending state for days", "the state machine had no transition out of pending when {ext} answered late", "A {noun} pending for more than {n} hours is checked against {ext} by a job."},
			{"shipping rates in {app} differed from the carrier's", "rates were cached for a week and the carrier changes them monthly", "Rates are refreshed from the carrier every night."},
			{"a refund was larger than the order", "partial refunds were not summed before the check", "A refund is checked against the order's total minus earlier refunds."},
			{"the monthly {noun} report disagreed with the ledger", "the report converted currencies with the rate of the day it ran", "Reports convert with the rate of the day of each {noun}, stored with it."},
		},
		rules: []string{
			"A {noun} changes state only through {func}, which writes an audit event.",
			"Merchants see amounts in their own currency in {app}.",
			"Anything that moves money in {svc} is recorded before it is sent.",
		},
		decisions: []string{
			"Daily payouts rather than weekly for new merchants, because support tickets about money not arriving fell by half in the trial.",
			"{Svc} keeps the carrier's raw answer next to the parsed one, because disputes need the original.",
		},
		facts: []string{
			"Payouts run at 06:00 UTC and skip the bank holidays of the merchant's country.",
			"A {noun} goes through draft, pending, confirmed and closed; cancelled is possible until confirmed.",
			"{Svc} supports {n}2 currencies; amounts for JPY have no minor unit.",
		},
		work: []string{
			"Added the cancelled state to {nouns}, with the transitions and an audit event.",
			"Added the weekly {noun} summary to {app}.",
			"Wrote the reconciliation job that compares payouts with the bank statement every morning.",
		},
		attempts: []string{"Recomputed the {noun} totals in the report query", "Marked stuck {nouns} as failed by hand"},
		checks:   []string{"the audit events of the {noun} tell which transition ran when", "compare the ledger entries of the merchant with the bank statement"},
		errs: []string{
			"{lfunc}: {noun} {n}{m}{m}: invalid transition from pending to draft",
			"{lfunc}: amount exceeds refundable balance",
			"{lfunc}: unknown currency code",
		},
		files:    []string{"internal/{pkg}/state.go", "internal/{pkg}/{noun}.go", "internal/ledger/reconcile.go", "internal/reports/{noun}_report.go"},
		category: []string{"logic_error", "concurrency"},
	},
}

// fillerRunNames name half the journal runs (the others are run-<8 hex>, as lore names them).
var fillerRunNames = []string{"sprint-{svc}", "{svc}-hardening", "{svc}-migration", "{noun}-sync", "q1-{svc}", "{svc}-cleanup"}

var fillerWorkflows = []string{"test", "release", "nightly", "e2e-storefront", "lint-frontend", "codegen", "build-images", "integration"}

var fillerInstances = []string{"m6g.xlarge", "r6g.2xlarge", "t4g.medium", "m7g.large", "r7g.xlarge"}

var fillerHosts = []string{"acme-partners.example", "carrierhub.example", "payments.example", "rates.example", "geo.example"}

var fillerScripts = []string{"release", "bootstrap", "gen", "smoke", "lint-migrations", "wait-for-db"}

var fillerJobs = []string{"reconcile", "settlement", "cleanup", "export", "stock-sync", "rates-refresh", "digest", "archive"}
