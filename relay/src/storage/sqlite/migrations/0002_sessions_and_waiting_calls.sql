CREATE TABLE `mcp_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`initialize` text NOT NULL,
	`created_at` text NOT NULL,
	`last_seen_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mcp_sessions_token` ON `mcp_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `mcp_sessions_seen` ON `mcp_sessions` (`last_seen_at`);--> statement-breakpoint
CREATE TABLE `waiting_calls` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`request_id` text NOT NULL,
	`tool` text NOT NULL,
	`ask_id` text,
	`from_turn` integer DEFAULT 0 NOT NULL,
	`progress_token` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `waiting_calls_session` ON `waiting_calls` (`session_id`);--> statement-breakpoint
CREATE INDEX `waiting_calls_created` ON `waiting_calls` (`created_at`);--> statement-breakpoint
ALTER TABLE `asks` ADD `delivered_at` text;