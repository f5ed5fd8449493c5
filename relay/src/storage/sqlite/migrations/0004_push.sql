CREATE TABLE `push_devices` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`person_id` text NOT NULL,
	`endpoint` text NOT NULL,
	`p256dh` text NOT NULL,
	`auth` text NOT NULL,
	`name` text NOT NULL,
	`loudness` text NOT NULL,
	`created_at` text NOT NULL,
	`last_push_at` text,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`person_id`) REFERENCES `people`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_devices_endpoint_unique` ON `push_devices` (`endpoint`);--> statement-breakpoint
CREATE INDEX `push_devices_person` ON `push_devices` (`person_id`);--> statement-breakpoint
CREATE TABLE `push_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`public_key` text NOT NULL,
	`private_key` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `push_notices` (
	`ask_id` text NOT NULL,
	`turn` integer NOT NULL,
	`at` text NOT NULL,
	PRIMARY KEY(`ask_id`, `turn`)
);
