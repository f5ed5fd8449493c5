ALTER TABLE "asks" ADD COLUMN "token_id" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "token_id" text;--> statement-breakpoint
CREATE INDEX "asks_open_by_token" ON "asks" USING btree ("token_id","status");