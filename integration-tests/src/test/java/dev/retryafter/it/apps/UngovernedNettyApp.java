package dev.retryafter.it.apps;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;

import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * GETs each URL once with Netty's own HTTP codec, a client of its own pipeline that the agent does not govern, and
 * prints each status.
 */
public final class UngovernedNettyApp {

    private UngovernedNettyApp() {
    }

    @SuppressWarnings("deprecation") // NioEventLoopGroup: deprecated in 4.2, and what 4.1 code has
    public static void main(String[] args) throws Exception {
        EventLoopGroup group = new NioEventLoopGroup(1);
        try {
            for (String url : args) {
                URI uri = URI.create(url);
                CompletableFuture<Integer> status = new CompletableFuture<>();
                Bootstrap bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class).handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 20),
                                new SimpleChannelInboundHandler<FullHttpResponse>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext context, FullHttpResponse response) {
                                        status.complete(response.status().code());
                                        context.close();
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
                                        status.completeExceptionally(cause);
                                        context.close();
                                    }
                                });
                    }
                });
                Channel channel = bootstrap.connect(uri.getHost(), uri.getPort()).sync().channel();
                DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri.getRawPath());
                request.headers().set(HttpHeaderNames.HOST, uri.getHost() + ":" + uri.getPort());
                request.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                channel.writeAndFlush(request);
                System.out.println("STATUS " + status.get(10, TimeUnit.SECONDS));
                channel.closeFuture().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
