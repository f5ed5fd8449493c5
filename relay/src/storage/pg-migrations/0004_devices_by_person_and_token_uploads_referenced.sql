ALTER TABLE "push_devices" DROP CONSTRAINT "push_devices_endpoint_unique";--> statement-breakpoint
ALTER TABLE "push_devices" ADD COLUMN "token_id" text;--> statement-breakpoint
ALTER TABLE "uploads" ADD COLUMN "referenced_at" text;--> statement-breakpoint
ALTER TABLE "push_devices" ADD CONSTRAINT "push_devices_token_id_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "push_devices_person_endpoint" ON "push_devices" USING btree ("person_id","endpoint");--> statement-breakpoint
CREATE INDEX "push_devices_token" ON "push_devices" USING btree ("token_id");--> statement-breakpoint
CREATE INDEX "uploads_orphans" ON "uploads" USING btree ("referenced_at","stored_at");--> statement-breakpoint
-- Images stored before this rule may be named by asks already: they are kept as if named.
UPDATE "uploads" SET "referenced_at" = "stored_at" WHERE "stored_at" IS NOT NULL;