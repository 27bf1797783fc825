/**
 * Spring Boot 3 support for relock: {@link io.relock.spring.RelockAutoConfiguration} (a {@link
 * io.relock.Relock} bean from {@code spring.data.redis.*} and {@link io.relock.spring.RelockProperties
 * relock.*}), {@link io.relock.spring.Locked} methods (with {@link io.relock.spring.CurrentLease} and
 * {@link io.relock.spring.LostLeaseHandler}), the {@code relock.*} Micrometer meters and the {@code
 * relock} health indicator. Start with {@link io.relock.spring.Locked}.
 */
package io.relock.spring;
