import { Module } from '@nestjs/common';
import { CommonModule, keyed } from '../common/common.module.js';
import { SecretBox } from '../common/secret-box.js';
import { DatabaseModule } from '../db/database.module.js';
import { OrgsModule } from '../orgs/orgs.module.js';
import { SECRET_VALUE_BOX, SecretEntryLinks } from './secret-entry-links.js';
import { SecretEntryController } from './secret-entry.controller.js';
import { SecretsService } from './secrets.service.js';

/** Secrets: their records (kadu_secrets_*) and the single-use page where a person types a value (`/secrets/entry`). */
@Module({
  imports: [DatabaseModule, CommonModule, OrgsModule],
  controllers: [SecretEntryController],
  providers: [
    { provide: SECRET_VALUE_BOX, ...keyed((k) => new SecretBox(k, 'secret-value')) },
    SecretsService,
    SecretEntryLinks,
  ],
  exports: [SecretsService],
})
export class SecretsModule {}
