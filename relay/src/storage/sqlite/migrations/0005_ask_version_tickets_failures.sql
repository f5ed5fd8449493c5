CREATE TABLE `auth_failures` (
	`address` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`since` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `event_tickets` (
	`hash` text PRIMARY KEY NOT NULL,
	`token_id` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `event_tickets_expires` ON `event_tickets` (`expires_at`);--> statement-breakpoint
CREATE INDEX `event_tickets_token` ON `event_tickets` (`token_id`);--> statement-breakpoint
ALTER TABLE `asks` ADD `version` integer DEFAULT 0 NOT NULL;