ALTER TABLE `asks` ADD `fingerprint` text;--> statement-breakpoint
CREATE INDEX `asks_fingerprint` ON `asks` (`space_id`,`fingerprint`);