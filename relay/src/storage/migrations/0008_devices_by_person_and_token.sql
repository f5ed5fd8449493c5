DROP INDEX `push_devices_endpoint_unique`;--> statement-breakpoint
ALTER TABLE `push_devices` ADD `token_id` text REFERENCES tokens(id);--> statement-breakpoint
CREATE UNIQUE INDEX `push_devices_person_endpoint` ON `push_devices` (`person_id`,`endpoint`);--> statement-breakpoint
CREATE INDEX `push_devices_token` ON `push_devices` (`token_id`);