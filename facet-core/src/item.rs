//! [`Item`]: a DynamoDB item, what every other module reads and writes.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

/// A DynamoDB item: attribute name to value.
pub type Item = HashMap<String, AttributeValue>;
