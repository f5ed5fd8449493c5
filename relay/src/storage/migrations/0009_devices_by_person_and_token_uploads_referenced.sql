DROP INDEX `push_devices_endpoint_unique`;--> statement-breakpoint
ALTER TABLE `push_devices` ADD `token_id` text REFERENCES tokens(id);--> statement-breakpoint
CREATE UNIQUE INDEX `push_devices_person_endpoint` ON `push_devices` (`person_id`,`endpoint`);--> statement-breakpoint
CREATE INDEX `push_devices_token` ON `push_devices` (`token_id`);--> statement-breakpoint
ALTER TABLE `uploads` ADD `referenced_at` text;--> statement-breakpoint
CREATE INDEX `uploads_orphans` ON `uploads` (`referenced_at`,`stored_at`);--> statement-breakpoint
-- Images stored before this rule may be named by asks already: they are kept as if named.
UPDATE `uploads` SET `referenced_at` = `stored_at` WHERE `stored_at` IS NOT NULL;