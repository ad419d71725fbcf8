import { Module } from '@nestjs/common';
import { FilesController } from '../api/files.controller.js';
import { AuthModule } from '../auth/auth.module.js';
import { CommonModule, keyed } from '../common/common.module.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseModule } from '../db/database.module.js';
import { OrgsModule } from '../orgs/orgs.module.js';
import { FILE_STORE } from './file-store.js';
import { FileTransferController } from './file-transfer.controller.js';
import { FilesService } from './files.service.js';
import { LocalFileStore } from './local-file-store.js';
import { UrlSigner } from './url-signer.js';

/** Files: their records (`/api/v1/files`, kadu_files_*), their bytes in a store, signed transfer URLs. */
@Module({
  imports: [DatabaseModule, CommonModule, OrgsModule, AuthModule],
  controllers: [FilesController, FileTransferController],
  providers: [
    { provide: UrlSigner, ...keyed((k) => new UrlSigner(k)) },
    {
      provide: FILE_STORE,
      inject: [APP_CONFIG, UrlSigner],
      // The AWS SDK is loaded only when a bucket is configured (a quarter of a second and ~20 MB otherwise spent for nothing).
      useFactory: async (c: AppConfig, signer: UrlSigner) =>
        c.s3
          ? new (await import('./s3-file-store.js')).S3FileStore(c.s3, c.dependencyTimeoutMs)
          : new LocalFileStore(c, signer),
    },
    FilesService,
  ],
  exports: [FilesService, FILE_STORE],
})
export class FilesModule {}
