ALTER TABLE `asks` ADD `token_id` text;--> statement-breakpoint
CREATE INDEX `asks_open_by_token` ON `asks` (`token_id`,`status`);--> statement-breakpoint
ALTER TABLE `tasks` ADD `token_id` text;