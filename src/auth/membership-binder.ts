import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { bindMembership } from './bearer.strategies.js';
import { MEMBERSHIP, type MembershipCheck } from './membership.js';

/** Lets the bearer strategies apply the member's current role (see bindMembership). */
@Injectable()
export class MembershipBinder implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(MEMBERSHIP) private readonly membership: MembershipCheck,
  ) {}

  onModuleInit(): void {
    const express = this.adapterHost.httpAdapter.getInstance() as { locals: Record<string, unknown> };
    bindMembership(express.locals, this.membership);
  }
}
