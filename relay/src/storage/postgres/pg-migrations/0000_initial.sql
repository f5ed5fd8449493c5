CREATE TABLE "asks" (
	"id" text PRIMARY KEY NOT NULL,
	"space_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"revision" text NOT NULL,
	"opening" text NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	"closed_at" text,
	"delivered" integer DEFAULT 0 NOT NULL,
	"fingerprint" text,
	"delivered_at" text,
	"version" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "auth_failures" (
	"address" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"since" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "entries" (
	"ask_id" text NOT NULL,
	"seq" integer NOT NULL,
	"revision" text NOT NULL,
	"author" text NOT NULL,
	"body" text NOT NULL,
	"at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "event_tickets" (
	"hash" text PRIMARY KEY NOT NULL,
	"token_id" text NOT NULL,
	"expires_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"initialize" text NOT NULL,
	"created_at" text NOT NULL,
	"last_seen_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "people" (
	"id" text PRIMARY KEY NOT NULL,
	"space_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_devices" (
	"id" text PRIMARY KEY NOT NULL,
	"space_id" text NOT NULL,
	"person_id" text NOT NULL,
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"name" text NOT NULL,
	"loudness" text NOT NULL,
	"created_at" text NOT NULL,
	"last_push_at" text,
	CONSTRAINT "push_devices_endpoint_unique" UNIQUE("endpoint")
);
--> statement-breakpoint
CREATE TABLE "push_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"private_key" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_notices" (
	"ask_id" text NOT NULL,
	"turn" integer NOT NULL,
	"at" text NOT NULL,
	CONSTRAINT "push_notices_ask_id_turn_pk" PRIMARY KEY("ask_id","turn")
);
--> statement-breakpoint
CREATE TABLE "spaces" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "spaces_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"space_id" text NOT NULL,
	"ask_id" text,
	"status" text NOT NULL,
	"status_message" text,
	"request" text NOT NULL,
	"result" text,
	"ttl_ms" integer,
	"poll_interval_ms" integer,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"person_id" text NOT NULL,
	"kind" text NOT NULL,
	"created_at" text NOT NULL,
	"revoked_at" text,
	CONSTRAINT "tokens_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"space_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"token_id" text,
	"content_type" text NOT NULL,
	"max_bytes" integer NOT NULL,
	"expires_at" text NOT NULL,
	"stored_at" text,
	"size" integer,
	"bytes" "bytea",
	CONSTRAINT "uploads_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "waiting_calls" (
	"id" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"request_id" text NOT NULL,
	"tool" text NOT NULL,
	"ask_id" text,
	"from_turn" integer DEFAULT 0 NOT NULL,
	"progress_token" text,
	"created_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "asks" ADD CONSTRAINT "asks_space_id_spaces_id_fk" FOREIGN KEY ("space_id") REFERENCES "public"."spaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_ask_id_asks_id_fk" FOREIGN KEY ("ask_id") REFERENCES "public"."asks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_tickets" ADD CONSTRAINT "event_tickets_token_id_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "people" ADD CONSTRAINT "people_space_id_spaces_id_fk" FOREIGN KEY ("space_id") REFERENCES "public"."spaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_devices" ADD CONSTRAINT "push_devices_space_id_spaces_id_fk" FOREIGN KEY ("space_id") REFERENCES "public"."spaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_devices" ADD CONSTRAINT "push_devices_person_id_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."people"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_space_id_spaces_id_fk" FOREIGN KEY ("space_id") REFERENCES "public"."spaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_person_id_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."people"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_space_id_spaces_id_fk" FOREIGN KEY ("space_id") REFERENCES "public"."spaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_token_id_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "asks_open" ON "asks" USING btree ("space_id","status","created_at");--> statement-breakpoint
CREATE INDEX "asks_closed" ON "asks" USING btree ("space_id","closed_at");--> statement-breakpoint
CREATE INDEX "asks_fingerprint" ON "asks" USING btree ("space_id","fingerprint");--> statement-breakpoint
CREATE UNIQUE INDEX "entries_ask_seq" ON "entries" USING btree ("ask_id","seq");--> statement-breakpoint
CREATE INDEX "event_tickets_expires" ON "event_tickets" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "event_tickets_token" ON "event_tickets" USING btree ("token_id");--> statement-breakpoint
CREATE INDEX "mcp_sessions_token" ON "mcp_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "mcp_sessions_seen" ON "mcp_sessions" USING btree ("last_seen_at");--> statement-breakpoint
CREATE UNIQUE INDEX "people_space_name" ON "people" USING btree ("space_id","name");--> statement-breakpoint
CREATE INDEX "push_devices_person" ON "push_devices" USING btree ("person_id");--> statement-breakpoint
CREATE INDEX "uploads_unused_by_token" ON "uploads" USING btree ("token_id","stored_at","expires_at");--> statement-breakpoint
CREATE INDEX "uploads_unused" ON "uploads" USING btree ("stored_at","expires_at");--> statement-breakpoint
CREATE INDEX "waiting_calls_session" ON "waiting_calls" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "waiting_calls_created" ON "waiting_calls" USING btree ("created_at");