package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.log.AgentLogger;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The slf4j provider of the agent's relocated slf4j, which only Jedis logs to: its lines go to the
 * agent's log at debug level, named as Jedis's. The fleet store says itself, once, what a Redis
 * outage means for the application; Jedis's own account of it is for debugging.
 */
public final class RedisClientLog implements SLF4JServiceProvider {

    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();

    @Override
    public ILoggerFactory getLoggerFactory() {
        return Line::new;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
    }

    /** One Jedis logger. */
    private static final class Line extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;

        Line(String name) {
            this.name = name;
        }

        private static boolean on() {
            return AgentLog.logger().isDebugEnabled();
        }

        @Override
        public boolean isTraceEnabled() {
            return false;
        }

        @Override
        public boolean isDebugEnabled() {
            return on();
        }

        @Override
        public boolean isInfoEnabled() {
            return on();
        }

        @Override
        public boolean isWarnEnabled() {
            return on();
        }

        @Override
        public boolean isErrorEnabled() {
            return on();
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String message, Object[] arguments, Throwable thrown) {
            AgentLogger log = AgentLog.logger();
            String text = MessageFormatter.basicArrayFormat(message, arguments);
            if (thrown != null) {
                log.debug("{} {}: {}", level, name, text, thrown);
            } else {
                log.debug("{} {}: {}", level, name, text);
            }
        }
    }
}
