import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { DtoSchemaBuilder } from './dto-schema.js';
import { buildToolInputClass } from './tool-input-class.js';

class LineDto {
  @IsString()
  @MaxLength(20)
  sku: string;

  @IsNumber()
  @Min(0)
  @Max(1000)
  amount: number;
}

class InvoiceDto {
  @IsEmail()
  @JSONSchema({ description: 'Who pays' })
  payer_email: string;

  @IsIn(['brl', 'usd'])
  currency: string;

  @IsOptional()
  @Matches(/^[A-Z]{3}-\d+$/)
  reference?: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => LineDto)
  lines: LineDto[];

  @IsOptional()
  @IsBoolean()
  draft?: boolean;
}

describe('DtoSchemaBuilder', () => {
  const builder = new DtoSchemaBuilder();

  it('maps types, formats, enums, patterns, bounds, array sizes and descriptions', () => {
    const schema = builder.build(InvoiceDto);
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        // Not `format: email`: that would refuse internationalised addresses the validator takes (validator-schemas.ts).
        payer_email: { type: 'string', pattern: '^[\\s\\S]+@[^@\\s]+\\.[^@\\s]+$', description: 'Who pays' },
        currency: { enum: ['brl', 'usd'] },
        // @IsOptional() lets null through: the schema too (optional-null.ts).
        reference: { type: ['string', 'null'], pattern: '^[A-Z]{3}-\\d+$' },
        lines: { type: 'array', minItems: 1, maxItems: 10, items: { $ref: '#/$defs/LineDto' } },
        draft: { type: ['boolean', 'null'] },
      },
      required: ['payer_email', 'currency', 'lines'],
    });
    expect(schema).not.toHaveProperty('additionalProperties');
  });

  it('makes nested DTOs self-contained under $defs', () => {
    const schema = builder.build(InvoiceDto, true);
    expect(schema.$defs).toEqual({
      LineDto: {
        type: 'object',
        properties: { sku: { type: 'string', maxLength: 20 }, amount: { type: 'number', minimum: 0, maximum: 1000 } },
        required: ['sku', 'amount'],
        additionalProperties: false,
      },
    });
    expect(schema.additionalProperties).toBe(false);
    expect(JSON.stringify(schema)).not.toContain('#/definitions/');
  });

  it("gives each DTO its own nested class when two of the app's classes share a name", () => {
    // Two modules of one monolith, each with its own `AddressDto`.
    const billing = (() => {
      class AddressDto {
        @IsString()
        @MaxLength(9)
        postcode: string;
      }
      class BillingDto {
        @ValidateNested()
        @Type(() => AddressDto)
        address: AddressDto;
      }
      return BillingDto;
    })();
    const shipping = (() => {
      class AddressDto {
        @IsNumber()
        dock: number;

        @IsOptional()
        @IsString()
        note?: string;
      }
      class ShippingDto {
        @ValidateNested()
        @Type(() => AddressDto)
        address: AddressDto;
      }
      return ShippingDto;
    })();
    expect(builder.build(billing).$defs).toEqual({
      AddressDto: {
        type: 'object',
        properties: { postcode: { type: 'string', maxLength: 9 } },
        required: ['postcode'],
      },
    });
    expect(builder.build(shipping).$defs).toEqual({
      AddressDto: {
        type: 'object',
        properties: { dock: { type: 'number' }, note: { type: ['string', 'null'] } },
        required: ['dock'],
      },
    });
  });

  it("resolves the class a custom validator's property holds (its design type), as a nested one's", () => {
    const AtMostOneKey = () =>
      ValidateBy({ name: 'atMostOneKey', validator: { validate: (v: object) => Object.keys(v).length <= 1 } });
    class SettingsDto {
      @IsBoolean()
      dark: boolean;
    }
    class ProfileDto {
      @AtMostOneKey()
      settings: SettingsDto;
    }
    const schema = builder.build(ProfileDto);
    expect(schema.properties).toEqual({ settings: { $ref: '#/$defs/SettingsDto' } });
    expect(schema.$defs).toEqual({
      SettingsDto: { type: 'object', properties: { dark: { type: 'boolean' } }, required: ['dark'] },
    });
  });

  it('merges id arguments and DTO fields into one flat input', () => {
    const Input = buildToolInputClass('invoices_update', InvoiceDto, [
      { name: 'invoice_id', type: String, options: { description: 'The invoice', validators: [IsUUID('7')] } },
      { name: 'notify', type: Boolean, options: { required: false } },
    ]);
    const schema = builder.build(Input, true);
    expect(schema.properties).toMatchObject({
      invoice_id: { type: 'string', format: 'uuid', description: 'The invoice' },
      notify: { type: 'boolean' },
      payer_email: { pattern: '^[\\s\\S]+@[^@\\s]+\\.[^@\\s]+$' },
    });
    expect(schema.required).toEqual(expect.arrayContaining(['invoice_id', 'payer_email', 'currency', 'lines']));
    expect(schema.required).not.toContain('notify');
  });
});
