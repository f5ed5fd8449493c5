CREATE TABLE `ask_followers` (
	`ask_id` text NOT NULL,
	`replica` text NOT NULL,
	`since` text NOT NULL,
	PRIMARY KEY(`ask_id`, `replica`)
);
--> statement-breakpoint
CREATE INDEX `ask_followers_replica` ON `ask_followers` (`replica`);