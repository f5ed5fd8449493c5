ALTER TABLE `uploads` ADD `token_id` text REFERENCES tokens(id);--> statement-breakpoint
CREATE INDEX `uploads_unused_by_token` ON `uploads` (`token_id`,`stored_at`,`expires_at`);--> statement-breakpoint
CREATE INDEX `uploads_unused` ON `uploads` (`stored_at`,`expires_at`);