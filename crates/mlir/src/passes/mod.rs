//! The HIVM passes registered with the driver.

use crate::pass::Pass;

/// Every pass this crate provides, in registration order.
pub fn all() -> Vec<Box<dyn Pass>> {
    Vec::new()
}
